import sharp from "sharp";
import type { RenderRequest } from "@/core/ports/renderer";
import type { EffectOutput } from "../../shared/image-io";
import { babySvg, SIZE } from "./portrait";
import { inspect } from "./rules";
import { combine, traitsOf, type Rgb } from "./traits";

/**
 * Baby face generator, local engine: an illustrated baby portrait (portrait.ts) in the
 * parents' combined skin tone, hair and eye colour (traits.ts), with infant proportions.
 * The earlier version morphed the parents' own faces into a smaller one: reviewers found it
 * creepy (an adult face shrunk, glasses doubled, the beard kept). Drawing the baby keeps
 * nothing of the adults' pixels. A hosted model draws a photographic baby.
 */
export const OUTPUT = SIZE;

/** Below this chroma on both parents' skin, the photos are black-and-white or toned. */
const MONOCHROME_CHROMA = 10;

const chroma = (c: Rgb) => Math.max(...c) - Math.min(...c);

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const parents = await inspect(req);
  const [a, b] = parents.map((p) => traitsOf(p.image, p.face)) as [
    ReturnType<typeof traitsOf>,
    ReturnType<typeof traitsOf>,
  ];
  const greyA = chroma(a.skin) < MONOCHROME_CHROMA;
  const greyB = chroma(b.skin) < MONOCHROME_CHROMA;
  const mono = greyA && greyB;
  // A black-and-white photo beside a colour one says nothing about colour: the colour
  // parent's skin, hair and eye colours are used.
  const traits = greyA && !greyB ? combine(b, b) : greyB && !greyA ? combine(a, a) : combine(a, b);
  // An old black-and-white or sepia couple: drawn in a neutral palette, then toned like their photo.
  const drawn = mono
    ? { ...traits, skin: [224, 180, 150] as Rgb, eye: [88, 62, 44] as Rgb, hair: [96, 70, 50] as Rgb }
    : traits;
  let img = sharp(Buffer.from(babySvg(drawn, req.seed))).flatten({ background: "#ffffff" });
  if (mono) {
    const tone = traits.skin;
    const l = Math.max(1, (tone[0] + tone[1] + tone[2]) / 3);
    img = img
      .greyscale()
      .toColourspace("srgb")
      .tint({ r: (tone[0] / l) * 160, g: (tone[1] / l) * 160, b: (tone[2] / l) * 160 });
  }
  const bytes = await img.png().toBuffer();
  return { bytes: new Uint8Array(bytes), width: SIZE, height: SIZE };
}
