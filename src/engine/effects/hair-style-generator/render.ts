import { personMatte, type Face } from "../../vision/human";
import { encodePng, transformRaw, type EffectOutput } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import { hairRegion, headGeometry } from "../../shared/hair/hair-region";
import { inspect } from "../../shared/hair/rules";
import {
  backgroundPlate,
  hairLuma,
  lengthen,
  recolour,
  shorten,
  wave,
  type Rgb,
  type Scene,
} from "./variations";

/**
 * Hair Style Generator: one portrait, nine hairstyles in an even 3 x 3 grid of square
 * head-and-shoulders tiles. The hair region
 * (person matte minus the face oval, coloured like the hair) is recoloured, cut to chin
 * length, lengthened past the shoulders or waved; the face is the same in every tile.
 */

/** Output long side, gutter width (also the outer margin) and gutter colour. */
export const MAX_OUTPUT = 2048;
export const GUTTER = 12;
export const GUTTER_COLOUR: Rgb = [246, 246, 246];

/** The nine looks, row by row. Colours are the hair's mean; light and shade are kept. */
const LOOKS: ReadonlyArray<(scene: Scene, plate: () => Buffer) => Buffer> = [
  (s) => recolour(s, [236, 226, 200]), // platinum blonde
  (s) => recolour(s, [20, 18, 20]), // jet black
  (s) => recolour(s, [150, 56, 28]), // auburn
  (s, plate) => shorten(s, [112, 72, 44], plate()), // chestnut chin-length cut
  (s) => lengthen(s, [205, 160, 92]), // long golden blonde
  (s) => wave(s, [80, 48, 32]), // chocolate waves
  (s) => recolour(s, [246, 168, 198]), // pastel pink
  (s) => recolour(s, [172, 174, 182]), // silver
  (s) => recolour(s, [64, 140, 176]), // ocean blue
];

/** `face` moved by (-dx, -dy) and scaled by `k`: its place in the cropped, smaller tile. */
function placed(face: Face, dx: number, dy: number, k: number): Face {
  return {
    ...face,
    box: [(face.box[0] - dx) * k, (face.box[1] - dy) * k, face.box[2] * k, face.box[3] * k],
    mesh: face.mesh.map(([x, y, z]) => [(x - dx) * k, (y - dy) * k, z * k] as [number, number, number]),
  };
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const { src, face } = await inspect(req);
  // Square tiles framing the head and shoulders (room for long hair), inside the photo.
  const head = headGeometry(face);
  const side = Math.round(Math.min(src.width, src.height, head.fh * 3.4));
  const left = Math.round(Math.min(src.width - side, Math.max(0, head.cx - side / 2)));
  const top = Math.round(Math.min(src.height - side, Math.max(0, head.top - head.fh * 0.75)));
  // Every tile is rendered at its final size: nine full-size renders would be wasted work.
  const tw = Math.floor((MAX_OUTPUT - 4 * GUTTER) / 3);
  const th = tw;
  const k = tw / side;
  const tile = await transformRaw(src, (img) =>
    img.extract({ left, top, width: side, height: side }).resize(tw, th, { kernel: "lanczos3" }),
  );
  const matte = await personMatte(tile);
  const hair = hairRegion(tile, placed(face, left, top, k), matte.alpha);
  const scene: Scene = { src: tile, matte: matte.alpha, hair, luma: hairLuma(tile, hair), seed: req.seed };
  let plate: Buffer | null = null;
  const tiles = LOOKS.map((look) => look(scene, () => (plate ??= backgroundPlate(scene))));

  const width = 3 * tw + 4 * GUTTER;
  const height = 3 * th + 4 * GUTTER;
  const out = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) out.set(GUTTER_COLOUR, i * 3);
  tiles.forEach((t, n) => {
    const left = GUTTER + (n % 3) * (tw + GUTTER);
    const top = GUTTER + Math.floor(n / 3) * (th + GUTTER);
    for (let y = 0; y < th; y++) t.copy(out, ((top + y) * width + left) * 3, y * tw * 3, (y + 1) * tw * 3);
  });
  return encodePng({ data: out, width, height, channels: 3 });
}
