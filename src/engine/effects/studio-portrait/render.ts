import { personMatte } from "../../vision/human";
import { encodePng, type EffectOutput } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import { inspect } from "./rules";

/**
 * Studio Portrait: the person on a black background, clothing darkened to a black t-shirt,
 * and directional side light (bright from the left, falling off to the right). Uses the
 * vision layer's person matte and face mesh; refuses a photo without a face.
 */
export const KEY_LIGHT = { left: 1.2, right: 0.42 } as const;

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const { src, face } = await inspect(req);
  const { width, height } = src;
  const matte = await personMatte(src);

  // Reference colours: the face's skin (centre of the face box) and the hair (just above it).
  const cbcr = (r: number, g: number, b: number): [number, number] => [
    128 - 0.1687 * r - 0.3313 * g + 0.5 * b,
    128 + 0.5 * r - 0.4187 * g - 0.0813 * b,
  ];
  const mean = (x0: number, y0: number, x1: number, y1: number) => {
    const acc = [0, 0, 0];
    let n = 0;
    for (let y = Math.max(0, Math.round(y0)); y < Math.min(height, Math.round(y1)); y++)
      for (let x = Math.max(0, Math.round(x0)); x < Math.min(width, Math.round(x1)); x++) {
        if (matte.alpha[y * width + x]! < 128) continue;
        for (let c = 0; c < 3; c++) acc[c] = acc[c]! + src.data[(y * width + x) * 3 + c]!;
        n++;
      }
    return n ? acc.map((v) => v / n) : [128, 128, 128];
  };
  const [fx, fy, fw, fh] = face.box;
  const skin = mean(fx + fw * 0.3, fy + fh * 0.35, fx + fw * 0.7, fy + fh * 0.7);
  const skinC = cbcr(skin[0]!, skin[1]!, skin[2]!);
  const hair = mean(fx + fw * 0.2, fy - fh * 0.12, fx + fw * 0.8, fy + fh * 0.02);

  // Below the chin, what is neither skin-coloured nor hair-coloured is clothing.
  const chin = Math.max(...face.mesh.map((p) => p[1]));
  const clothesFrom = chin + fh * 0.12;
  const out = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const a = matte.alpha[i]! / 255;
      if (a <= 0.02) continue; // black studio background
      const o = i * 3;
      let r = src.data[o]!;
      let g = src.data[o + 1]!;
      let b = src.data[o + 2]!;
      // Side light: a smooth ramp across the face's width, held beyond it.
      const t = Math.min(1, Math.max(0, (x - fx) / fw));
      const light = KEY_LIGHT.left + (KEY_LIGHT.right - KEY_LIGHT.left) * (t * t * (3 - 2 * t));
      if (y > clothesFrom) {
        const [cb, cr] = cbcr(r, g, b);
        const isSkin = Math.hypot(cb - skinC[0], cr - skinC[1]) < 14 && r + g + b > 150;
        const isHair = Math.hypot(r - hair[0]!, g - hair[1]!, b - hair[2]!) < 45;
        if (!isSkin && !isHair) {
          const l = 0.299 * r + 0.587 * g + 0.114 * b;
          r = g = b = 8 + l * 0.12;
        }
      }
      out[o] = Math.min(255, Math.round(r * light * a));
      out[o + 1] = Math.min(255, Math.round(g * light * a));
      out[o + 2] = Math.min(255, Math.round(b * light * a));
    }
  }
  return encodePng({ data: out, width, height, channels: 3 });
}
