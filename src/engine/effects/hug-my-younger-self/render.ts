import { personMatte, type Face } from "../../vision/human";
import { encodePng, type EffectOutput, type RawImage } from "../../shared/image-io";
import { uniform } from "../../shared/random";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { sampleInto } from "../../shared/warp/warp";
import { hash, paletteFor, type Palette } from "./palette";
import { inspect, type Person } from "./rules";

/**
 * Hug my younger self: the person of today (first photo) and their childhood self (second)
 * are cut out and placed side by side, leaning towards each other as if hugging, on one
 * generated soft-bokeh background whose mood follows the optional prompt, with a warm grade.
 */
export const WIDTH = 1280;
export const HEIGHT = 960;
/** Where each face goes: centre (fractions of the frame), face height (of frame height), tilt. */
export const PLACES = {
  adult: { x: 0.39, y: 0.38, size: 0.36, tilt: 0.16 },
  child: { x: 0.63, y: 0.5, size: 0.3, tilt: -0.16 },
} as const;

/** The person as RGBA: the matte, faded out near the photo's edges where the body is cut off. */
async function cutout({ image }: Person): Promise<RawImage> {
  const { width, height } = image;
  const { alpha } = await personMatte(image);
  const fade = 0.1 * Math.min(width, height);
  const bottomFade = 0.3 * height;
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const edge = Math.min(x / fade, (width - 1 - x) / fade, (height - 1 - y) / bottomFade);
      const e = Math.min(1, edge);
      data[i * 4] = image.data[i * 3]!;
      data[i * 4 + 1] = image.data[i * 3 + 1]!;
      data[i * 4 + 2] = image.data[i * 3 + 2]!;
      data[i * 4 + 3] = Math.round(alpha[i]! * e * e * (3 - 2 * e));
    }
  }
  return { data, width, height, channels: 4 };
}

/** Soft gradient, a glow behind the pair, and out-of-focus light discs (seeded). */
function background(p: Palette, seed: number): Float32Array {
  const bg = new Float32Array(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    const t = y / (HEIGHT - 1);
    for (let x = 0; x < WIDTH; x++) {
      const glow = Math.exp(-(((x / WIDTH - 0.5) / 0.35) ** 2 + ((y / HEIGHT - 0.4) / 0.45) ** 2));
      for (let c = 0; c < 3; c++)
        bg[(y * WIDTH + x) * 3 + c] = p.top[c]! + (p.bottom[c]! - p.top[c]!) * t + 26 * glow;
    }
  }
  const rand = uniform(seed);
  for (let k = 0; k < 34; k++) {
    const cx = rand() * WIDTH;
    const cy = rand() * HEIGHT * 0.85;
    const r = 18 + rand() * 60;
    const strength = 0.12 + rand() * 0.22;
    for (let y = Math.max(0, Math.floor(cy - r)); y < Math.min(HEIGHT, cy + r); y++) {
      for (let x = Math.max(0, Math.floor(cx - r)); x < Math.min(WIDTH, cx + r); x++) {
        const d = Math.hypot(x - cx, y - cy) / r;
        if (d >= 1) continue;
        // Flat disc with a soft rim, like a defocused highlight.
        const a = strength * Math.min(1, (1 - d) / 0.25);
        const o = (y * WIDTH + x) * 3;
        for (let c = 0; c < 3; c++) bg[o + c] = bg[o + c]! + (p.bokeh[c]! - bg[o + c]!) * a;
      }
    }
  }
  return bg;
}

/** Draws the cutout scaled and tilted so its face lands at the given place, over `canvas`. */
function place(canvas: Float32Array, cut: RawImage, face: Face, at: (typeof PLACES)["adult" | "child"]) {
  const [fx, fy, fw, fh] = face.box;
  const k = (at.size * HEIGHT) / fh;
  const cos = Math.cos(at.tilt);
  const sin = Math.sin(at.tilt);
  const tx = at.x * WIDTH;
  const ty = at.y * HEIGHT;
  const px = Buffer.alloc(4);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      // Inverse mapping: rotate back by the tilt, then scale into the source photo.
      const dx = (x - tx) / k;
      const dy = (y - ty) / k;
      const sx = fx + fw / 2 + cos * dx + sin * dy;
      const sy = fy + fh / 2 - sin * dx + cos * dy;
      if (sx < 0 || sy < 0 || sx > cut.width - 1 || sy > cut.height - 1) continue;
      sampleInto(cut, sx, sy, px, 0);
      const a = px[3]! / 255;
      if (a === 0) continue;
      const o = (y * WIDTH + x) * 3;
      for (let c = 0; c < 3; c++) canvas[o + c] = canvas[o + c]! * (1 - a) + px[c]! * a;
    }
  }
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  if (req.images.length !== 2)
    throw new EngineError(
      "Please upload two photos: you today first, then you as a child.",
      false,
      "needTwoPhotos",
    );
  const { adult, child } = await inspect(req);
  const [adultCut, childCut] = await Promise.all([cutout(adult), cutout(child)]);

  const palette = paletteFor(req.prompt);
  const canvas = background(palette, (req.seed ^ hash(req.prompt)) >>> 0);
  // The child is drawn last: smaller and in front, leaning into the adult's shoulder.
  place(canvas, adultCut, adult.face, PLACES.adult);
  place(canvas, childCut, child.face, PLACES.child);

  // One warm grade over everything, with a little of the mood's colour, so the two photos
  // (often one old and faded) look taken in the same light.
  const tint = palette.top;
  const out = Buffer.alloc(WIDTH * HEIGHT * 3);
  const warm = [1.07, 1.0, 0.86];
  for (let i = 0; i < WIDTH * HEIGHT; i++) {
    for (let c = 0; c < 3; c++) {
      const v = canvas[i * 3 + c]! * 0.9 + tint[c]! * 0.1;
      out[i * 3 + c] = Math.max(0, Math.min(255, Math.round(v * warm[c]! + (c === 0 ? 6 : 0))));
    }
  }
  return encodePng({ data: out, width: WIDTH, height: HEIGHT, channels: 3 });
}
