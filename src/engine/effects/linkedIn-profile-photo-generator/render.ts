import sharp from "sharp";
import { encodePng, type EffectOutput } from "../../shared/image-io";
import { framePortrait } from "../../shared/portrait/frame";
import { fillNeck, headAlpha, headZone, readFaceLight } from "../../shared/portrait/light";
import { drawBlazer } from "../../shared/portrait/attire";
import type { RenderRequest } from "@/core/ports/renderer";
import { inspect } from "./rules";

/**
 * LinkedIn profile photo: checks the source (rules.ts: at least 50 px, one main face facing
 * the camera), frames a square headshot with the face at about 60 % of the frame's height,
 * cuts the head out with a refined matte (bystanders removed), dresses the shoulders in a
 * procedural blazer and shirt collar fitted to the neck and MoveNet's shoulders and lit
 * like the face, and sets it all on a neutral studio backdrop.
 */
export const FACE_SHARE = 0.6;
export const MAX_FACE_SHARE = 0.7;
export const OUTPUT = 800;
export const BACKGROUND: readonly [number, number, number] = [216, 221, 228];

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const { src, face, others } = await inspect(req);
  const frame = await framePortrait(src, face, others, {
    width: OUTPUT,
    height: OUTPUT,
    faceShare: FACE_SHARE,
    maxFaceShare: MAX_FACE_SHARE,
    faceY: 0.45,
    fill: BACKGROUND,
  });
  const { width: W, height: H, fg, geo } = frame;
  const light = readFaceLight(frame);
  fillNeck(frame);
  const keep = headAlpha(frame, headZone(frame));
  const garment = drawBlazer(geo, light, W, H, req.seed ?? 1);

  // Below the chin the photo keeps only the neck (and hair beside it, down to the collar):
  // the blazer is the body, so the photo's own clothing and anyone leaning in are gone.
  const out = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      // A studio backdrop: the neutral grey, a little lighter behind the head.
      const dx = (x - geo.cx) / W;
      const dy = (y - geo.eyeY) / H;
      const glow = 1 + 0.025 * Math.max(0, 1 - (dx * dx + dy * dy) * 3) - 0.01;
      let r = BACKGROUND[0] * glow;
      let g = BACKGROUND[1] * glow;
      let b = BACKGROUND[2] * glow;
      const a = keep[i]!;
      if (a > 0) {
        r = fg[i * 3]! * a + r * (1 - a);
        g = fg[i * 3 + 1]! * a + g * (1 - a);
        b = fg[i * 3 + 2]! * a + b * (1 - a);
      }
      const ga = garment.alpha[i]!;
      if (ga > 0) {
        r = garment.rgb[i * 3]! * ga + r * (1 - ga);
        g = garment.rgb[i * 3 + 1]! * ga + g * (1 - ga);
        b = garment.rgb[i * 3 + 2]! * ga + b * (1 - ga);
      }
      out[i * 3] = Math.max(0, Math.min(255, Math.round(r)));
      out[i * 3 + 1] = Math.max(0, Math.min(255, Math.round(g)));
      out[i * 3 + 2] = Math.max(0, Math.min(255, Math.round(b)));
    }
  }
  // Tidy light and colour: gentle contrast, a touch of warmth, slight sharpening.
  const graded = await sharp(out, { raw: { width: W, height: H, channels: 3 } })
    .linear(1.04, -4)
    .recomb([
      [1.02, 0, 0],
      [0, 1.0, 0],
      [0, 0, 0.98],
    ])
    .sharpen({ sigma: 0.7, m1: 0, m2: 1.2 })
    .raw()
    .toBuffer();
  return encodePng({ data: graded, width: W, height: H, channels: 3 });
}
