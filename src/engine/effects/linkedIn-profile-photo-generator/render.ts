import sharp from "sharp";
import { personMatte } from "../../vision/human";
import { encodePng, type EffectOutput } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import { inspect } from "./rules";

/**
 * LinkedIn profile photo: checks the source (rules.ts: at least 50 px, exactly one face,
 * facing the camera), then crops a square headshot with the face at about 60 % of the frame's height,
 * puts the person on a solid neutral background, tidies light and colour, and tones the
 * clothing towards dark business wear.
 */
export const FACE_SHARE = 0.6;
export const MAX_FACE_SHARE = 0.7;
export const OUTPUT = 800;
export const BACKGROUND: readonly [number, number, number] = [216, 221, 228];

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const { src, face } = await inspect(req);
  const { width, height } = src;
  const matte = await personMatte(src);

  // Composite: the person over the neutral background, clothing toned to dark business wear.
  const [fx, fy, fw, fh] = face.box;
  const chin = Math.max(...face.mesh.map((p) => p[1]));
  const clothesFrom = chin + fh * 0.15;
  const comp = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const a = matte.alpha[i]! / 255;
      let r = src.data[i * 3]!;
      let g = src.data[i * 3 + 1]!;
      let b = src.data[i * 3 + 2]!;
      if (y > clothesFrom) {
        const skin = r > 95 && g > 40 && b > 20 && r > g && r > b && r - Math.min(g, b) > 15;
        if (!skin) {
          // Charcoal-navy suit tones, keeping the fabric's shading.
          const l = 0.299 * r + 0.587 * g + 0.114 * b;
          const k = 0.25 + (l / 255) * 0.35;
          r = 38 * k * 2;
          g = 46 * k * 2;
          b = 64 * k * 2;
        }
      }
      comp[i * 3] = Math.round(r * a + BACKGROUND[0] * (1 - a));
      comp[i * 3 + 1] = Math.round(g * a + BACKGROUND[1] * (1 - a));
      comp[i * 3 + 2] = Math.round(b * a + BACKGROUND[2] * (1 - a));
    }
  }

  // Square crop: the face box is FACE_SHARE of the side; face centre a little above middle.
  // 60 % where the photo allows; a photo cropped tight around the face gets up to 70 %
  // rather than an invented body below it.
  const side = Math.round(Math.max(fh / MAX_FACE_SHARE, Math.min(fh / FACE_SHARE, Math.min(width, height))));
  const cx = fx + fw / 2;
  const cy = fy + fh / 2;
  // Keep the square inside the photo where it fits (the face then sits a little off the
  // ideal spot); pad with background only where the photo is too small for it.
  const fit = (start: number, size: number) =>
    side <= size ? Math.min(Math.max(0, start), size - side) : start;
  const left = fit(Math.round(cx - side / 2), width);
  const top = fit(Math.round(cy - side * 0.45), height);
  // Pad with the background where the crop leaves the photo.
  const pad = {
    left: Math.max(0, -left),
    top: Math.max(0, -top),
    right: Math.max(0, left + side - width),
    bottom: Math.max(0, top + side - height),
  };
  // Two pipelines: within one, sharp extracts before it extends.
  const padded = await sharp(comp, { raw: { width, height, channels: 3 } })
    .extend({ ...pad, background: { r: BACKGROUND[0], g: BACKGROUND[1], b: BACKGROUND[2] } })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const framed = await sharp(padded.data, {
    raw: { width: padded.info.width, height: padded.info.height, channels: 3 },
  })
    .extract({ left: left + pad.left, top: top + pad.top, width: side, height: side })
    .resize(OUTPUT, OUTPUT, { kernel: "lanczos3" })
    // Tidy light and colour: gentle contrast, a touch of warmth, slight sharpening.
    .linear(1.06, -6)
    .recomb([
      [1.02, 0, 0],
      [0, 1.0, 0],
      [0, 0, 0.98],
    ])
    .sharpen({ sigma: 0.8, m1: 0, m2: 1.5 })
    .raw()
    .toBuffer();
  return encodePng({ data: framed, width: OUTPUT, height: OUTPUT, channels: 3 });
}
