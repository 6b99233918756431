import { encodePng, type EffectOutput } from "../../shared/image-io";
import { framePortrait } from "../../shared/portrait/frame";
import { fillNeck, headAlpha, headZone, readFaceLight } from "../../shared/portrait/light";
import { drawTee } from "../../shared/portrait/attire";
import { boxMean } from "../../shared/portrait/matte";
import type { RenderRequest } from "@/core/ports/renderer";
import { inspect } from "./rules";

/**
 * Studio Portrait: a head-and-shoulders 4:5 frame on the main face, the head cut out with a
 * refined matte (bystanders removed) on solid black, a procedural black crew-neck tee
 * fitted to the neck and shoulders, and a dramatic side light: the head is lit as an
 * ellipsoid from the side the photo's light already comes from, the far side falling into
 * shadow.
 */
export const WIDTH = 896;
export const HEIGHT = 1120;
export const FACE_SHARE = 0.34;

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const { src, face, others } = await inspect(req);
  const frame = await framePortrait(src, face, others, {
    width: WIDTH,
    height: HEIGHT,
    faceShare: FACE_SHARE,
    maxFaceShare: 0.5,
    faceY: 0.36,
    fill: [0, 0, 0],
  });
  const { width: W, height: H, fg, geo } = frame;
  const light = readFaceLight(frame);
  fillNeck(frame);
  // Dramatic: the key light is strong whatever the photo's own contrast.
  const key = { ...light, strength: 1 };
  const keep = headAlpha(frame, headZone(frame));
  const tee = drawTee(geo, key, W, H, req.seed ?? 1);

  // Key light on the head: an ellipsoid around the face, lit from the key side and a little
  // above; smoothed so the terminator is soft.
  const [bx, by, bw, bh] = geo.box;
  const hcx = bx + bw / 2;
  const hcy = by + bh * 0.45;
  const rx = geo.fw * 0.62;
  const ry = bh * 0.7;
  const L = [key.side * 0.78, -0.25, 0.57];
  const gain = new Float32Array(W * H);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      let nx = (x - hcx) / rx;
      let ny = (y - hcy) / ry;
      const r2 = nx * nx + ny * ny;
      let nz = 0;
      if (r2 < 1) nz = Math.sqrt(1 - r2);
      else {
        const r = Math.sqrt(r2);
        nx /= r;
        ny /= r;
      }
      const d = Math.max(0, (nx * L[0]! + ny * L[1]! + nz * L[2]! + 0.12) / 1.12);
      gain[y * W + x] = 0.2 + 1.05 * d;
    }
  const soft = boxMean(gain, W, H, Math.max(2, Math.round(geo.fw * 0.06)));

  const out = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const a = keep[i]!;
      const k = soft[i]! * a;
      let r = fg[i * 3]! * k;
      let g = fg[i * 3 + 1]! * k;
      let b = fg[i * 3 + 2]! * k;
      const ta = tee.alpha[i]!;
      if (ta > 0) {
        r = tee.rgb[i * 3]! * ta + r * (1 - ta);
        g = tee.rgb[i * 3 + 1]! * ta + g * (1 - ta);
        b = tee.rgb[i * 3 + 2]! * ta + b * (1 - ta);
      }
      out[i * 3] = Math.max(0, Math.min(255, Math.round(r)));
      out[i * 3 + 1] = Math.max(0, Math.min(255, Math.round(g)));
      out[i * 3 + 2] = Math.max(0, Math.min(255, Math.round(b)));
    }
  }
  return encodePng({ data: out, width: W, height: H, channels: 3 });
}
