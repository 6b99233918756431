import { encodePng, type EffectOutput } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import { inspect } from "./rules";

/**
 * Bust enhancement: a subtle volume warp of two discs placed from the shoulder keypoints
 * (rules.ts), after the adult-consent, minor and body checks. Inside each disc the image is
 * magnified towards the centre and lifted slightly, with a smooth falloff to zero at the
 * rim, plus a faint highlight above and shadow below the centre for volume. Pixels outside
 * the discs are the input's, untouched.
 */
/** Magnification at a disc's centre is 1 / (1 - STRENGTH). */
export const STRENGTH = 0.14;
/** Lift at the centre, in radii. */
const LIFT = 0.05;
/** Shading amplitude (fraction of brightness). */
const SHADE = 0.035;

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const { src, region } = await inspect(req);
  const { width, height, data } = src;
  const out = Buffer.from(data);
  const R = region.radius;
  const [dx, dy] = region.down;

  const sample = (x: number, y: number, c: number) => {
    // Bilinear: the warp moves pixels by fractions, nearest sampling would show steps.
    const x0 = Math.max(0, Math.min(width - 2, Math.floor(x)));
    const y0 = Math.max(0, Math.min(height - 2, Math.floor(y)));
    const fx = Math.min(1, Math.max(0, x - x0));
    const fy = Math.min(1, Math.max(0, y - y0));
    const i = (y0 * width + x0) * 3 + c;
    const row = width * 3;
    return (
      (data[i]! * (1 - fx) + data[i + 3]! * fx) * (1 - fy) +
      (data[i + row]! * (1 - fx) + data[i + row + 3]! * fx) * fy
    );
  };

  for (const [cx, cy] of region.centres) {
    for (let y = Math.floor(cy - R); y <= Math.ceil(cy + R); y++) {
      for (let x = Math.floor(cx - R); x <= Math.ceil(cx + R); x++) {
        const px = x - cx;
        const py = y - cy;
        const r = Math.hypot(px, py) / R;
        if (r >= 1) continue;
        const w = (1 - r * r) ** 2; // 1 at the centre, 0 with zero slope at the rim
        const f = 1 - STRENGTH * w;
        // Sample closer to the centre (magnify) and from a little further down (lift).
        const sx = cx + px * f + dx * LIFT * R * w;
        const sy = cy + py * f + dy * LIFT * R * w;
        // Along the torso: lighter above the centre, darker below.
        const along = (px * dx + py * dy) / R;
        const shade = 1 - SHADE * w * Math.max(-1, Math.min(1, along * 2));
        const o = (y * width + x) * 3;
        for (let c = 0; c < 3; c++)
          out[o + c] = Math.max(0, Math.min(255, Math.round(sample(sx, sy, c) * shade)));
      }
    }
  }
  return encodePng({ data: out, width, height, channels: 3 });
}
