import { encodePng, type EffectOutput, type RawImage } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import type { Face } from "../../vision/human";
import { changeNotVisibleError, footprint, inspect, type BustRegion } from "./rules";
import { warpAt, warpBox } from "./warp";

/**
 * Bust enhancement: a liquify "bloat" per side (warp.ts), placed from the shoulder keypoints
 * (and the hips when seen) by rules.ts after the adult-consent, minor, one-person and body
 * checks, which also refuse a photo where the change would not show.
 *
 * The garment over each side is brought forward (magnified by up to about 1.2 at the fullest
 * point) and its outline pushed outward and down, with a smooth falloff to no motion at the
 * support's rim (past the arm, below the shoulder line, at the midline): the face, the
 * shoulders, the background away from the torso and every straight edge outside the support
 * stay as they are. Texture and buttons are carried by the warp; anything stiff on the cloth (a
 * name tag, a ribbon bar: rules.ts `chestPieces`) moves whole with the field's mean over it,
 * blended into the cloth's motion over a short margin, so it is never bent or enlarged. Where
 * the outline moves over the background, the person's content (the matte, warped with it)
 * covers it; nowhere else does a background pixel change. Shading, subtle: the volume's
 * surface (height {@link HEIGHT}·h over the form's footprint) lit by the photo's key light
 * (Lambert, against the flat torso's), plus a soft fold under the lower curve; a change of the
 * garment's own lightness (a lift along its own mean colour for dark cloth), never a painted
 * colour.
 */

/** Height of the volume's surface for the shading, in shoulder widths. */
const HEIGHT = 0.12;
/** A pixel counts as visibly changed past this many levels on a channel. */
const VISIBLE_LEVELS = 10;
/**
 * At least a square of this side (in shoulder widths) worth of pixels must change visibly:
 * a plain garment that blends into the background would move without showing.
 */
const MIN_CHANGED_SIDE = 0.1;
/** Occlusion under the form: lightness removed at the darkest of the fold below it. */
const FOLD = 0.12;

const clamp01 = (v: number) => Math.max(0, Math.min(1, v));
const smoothstep = (e0: number, e1: number, v: number) => {
  const t = clamp01((v - e0) / (e1 - e0));
  return t * t * (3 - 2 * t);
};

/** Direction to the key light (image x right, y down, z towards the camera), unit length. */
export type Light = [number, number, number];

/** Light from the front and a little above: what a photo gives when its light cannot be read. */
export const FRONT_LIGHT: Light = (() => {
  const v = [0, -0.5, 1];
  const n = Math.hypot(...v);
  return v.map((c) => c / n) as Light;
})();

/**
 * The photo's key light, read from the face: the two cheeks' lightness (under the eyes, off
 * the nose) gives the side the light comes from; it comes from a little above (as in nearly
 * every photo; the face's own top-to-bottom gradient is mostly its shape, not the light).
 */
export function readLight(src: RawImage, face: Face): Light {
  const m = face.mesh;
  const fw = Math.hypot(m[454]![0] - m[234]![0], m[454]![1] - m[234]![1]);
  const cheek = (k: number) => {
    // A square of a fifth of the face width, a third of the way from the cheek edge to the nose.
    const cx = m[k]![0] + (m[1]![0] - m[k]![0]) / 3;
    const cy = m[k]![1] + fw * 0.1;
    const h = fw * 0.1;
    let s = 0;
    let n = 0;
    for (let y = Math.round(cy - h); y <= cy + h; y++)
      for (let x = Math.round(cx - h); x <= cx + h; x++) {
        if (x < 0 || y < 0 || x >= src.width || y >= src.height) continue;
        const i = (y * src.width + x) * 3;
        s += 0.299 * src.data[i]! + 0.587 * src.data[i + 1]! + 0.114 * src.data[i + 2]!;
        n++;
      }
    return n ? s / n : 0;
  };
  const left = cheek(234);
  const right = cheek(454);
  const mean = Math.max(20, (left + right) / 2);
  const side = Math.max(-0.9, Math.min(0.9, ((right - left) / mean) * 2.5));
  const v = [side, -0.5, 1];
  const n = Math.hypot(...v);
  return v.map((c) => c / n) as Light;
}

/**
 * The volume at one pixel: `mx, my` is how far the garment's content moves there (the output
 * pixel takes its colour from `(x − mx, y − my)`: warp.ts `warpAt`), `shade` is a lightness
 * factor (1 = unchanged), `h` the volume's height over the form's footprint (0..1). No motion
 * outside the warp's supports; shade 1 outside the footprints, except the fold's shadow just
 * under the lower curve.
 */
export function bustField(
  region: BustRegion,
  x: number,
  y: number,
  light: Light = FRONT_LIGHT,
): { mx: number; my: number; shade: number; h: number } {
  const W = region.width;
  const [ax, ay] = region.along;
  const [dx, dy] = region.down;
  const [mx, my] = warpAt(region, x, y);
  let gx = 0;
  let gy = 0;
  let h = 0;
  let fold = 0;
  for (const side of [0, 1] as const) {
    const { q, qu, qv, a, b } = footprint(region, side, x, y);
    const out = side === 0 ? -1 : 1;
    if (qv > 0 && q < 1.3) {
      // The fold where the form meets the torso: a soft band along the lower curve, strongest
      // straight below the fullest point.
      const below = smoothstep(0.4, 0.9, qv / Math.max(1e-6, q));
      fold = Math.max(fold, below * Math.exp(-(((q - 1) / 0.22) ** 2)));
    }
    if (q >= 1) continue;
    const w = 1 - q * q;
    h += w * w;
    // Surface slope (height HEIGHT·W·h) in image coordinates.
    const du = (-4 * w * qu * HEIGHT * W) / a;
    const dv = (-4 * w * qv * HEIGHT * W) / b;
    gx += du * out * ax + dv * dx;
    gy += du * out * ay + dv * dy;
  }
  if (h === 0 && fold === 0) return { mx, my, shade: 1, h };
  // Lambert on the surface's normal against the flat torso's; highlights damped (cloth
  // scatters, and a bright rim reads as a ball), never below 0.4 (ambient light).
  const nl = Math.hypot(gx, gy, 1);
  const lit = (-gx * light[0] - gy * light[1] + light[2]) / nl;
  const ratio = lit / Math.max(0.2, light[2]);
  const lambert = Math.max(0.4, ratio > 1 ? 1 + (ratio - 1) * 0.6 : ratio);
  return { mx, my, shade: lambert * (1 - FOLD * fold), h };
}

/**
 * The warp and the shading over the warp's box (warp.ts `warpBox`, and the fold's shadow under
 * the form): per pixel, the content motion and the lightness factor.
 */
export function motionField(
  region: BustRegion,
  width: number,
  height: number,
  light: Light,
): { box: [number, number, number, number]; mx: Float32Array; my: Float32Array; shade: Float32Array } {
  const [x0, y0, x1, wy1] = warpBox(region, width, height);
  const y1 = Math.min(
    height - 1,
    Math.max(wy1, Math.ceil(Math.max(...region.centres.map((c) => c[1])) + region.width * 0.35)),
  );
  const w = x1 - x0 + 1;
  const h = y1 - y0 + 1;
  const mx = new Float32Array(w * h);
  const my = new Float32Array(w * h);
  const shade = new Float32Array(w * h);
  for (let y = y0; y <= y1; y++)
    for (let x = x0; x <= x1; x++) {
      const f = bustField(region, x, y, light);
      const k = (y - y0) * w + x - x0;
      mx[k] = f.mx;
      my[k] = f.my;
      shade[k] = f.shade;
    }
  return { box: [x0, y0, x1, y1], mx, my, shade };
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const { src, region, face, matte } = await inspect(req);
  const light = readLight(src, face);
  const { width, height, data } = src;
  const alpha = matte.alpha;
  const out = Buffer.from(data);
  const field = motionField(region, width, height, light);
  const [x0, y0, x1, y1] = field.box;
  const bw = x1 - x0 + 1;

  const sample = (x: number, y: number, c: number) => {
    // Bilinear: the warp moves pixels by fractions, nearest sampling would show steps.
    const xa = Math.max(0, Math.min(width - 2, Math.floor(x)));
    const ya = Math.max(0, Math.min(height - 2, Math.floor(y)));
    const fx = Math.min(1, Math.max(0, x - xa));
    const fy = Math.min(1, Math.max(0, y - ya));
    const i = (ya * width + xa) * 3 + c;
    const row = width * 3;
    return (
      (data[i]! * (1 - fx) + data[i + 3]! * fx) * (1 - fy) +
      (data[i + row]! * (1 - fx) + data[i + row + 3]! * fx) * fy
    );
  };

  // The garment's colour over the volumes (the median: a shirt, a tag or ribbons do not pull it):
  // dark cloth is lifted along it (its own hue).
  const channels: number[][] = [[], [], []];
  for (let y = y0; y <= y1; y += 2)
    for (let x = x0; x <= x1; x += 2) {
      if (alpha[y * width + x]! <= 128) continue;
      if (footprint(region, 0, x, y).q >= 1 && footprint(region, 1, x, y).q >= 1) continue;
      const o = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) channels[c]!.push(data[o + c]!);
    }
  const mean = channels.map((v) => (v.length ? v.sort((a, b) => a - b)[v.length >> 1]! : 128));
  const meanLight = Math.max(1, Math.max(...mean));
  // Lift per unit of highlight: about 60 levels on the brightest channel, in the mean's hue.
  const lift = mean.map((m) => (60 * m) / meanLight);

  // The person's matte, carried by the warp: where the outline moves over the background, the
  // person's content covers it; a background pixel nothing moves over keeps its colour.
  const alphaAt = (x: number, y: number) => {
    const xa = Math.max(0, Math.min(width - 2, Math.floor(x)));
    const ya = Math.max(0, Math.min(height - 2, Math.floor(y)));
    const fx = Math.min(1, Math.max(0, x - xa));
    const fy = Math.min(1, Math.max(0, y - ya));
    const i = ya * width + xa;
    return (
      ((alpha[i]! * (1 - fx) + alpha[i + 1]! * fx) * (1 - fy) +
        (alpha[i + width]! * (1 - fx) + alpha[i + width + 1]! * fx) * fy) /
      255
    );
  };
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const k = (y - y0) * bw + x - x0;
      const mx = field.mx[k]!;
      const my = field.my[k]!;
      const shade = field.shade[k]!;
      if (mx === 0 && my === 0 && shade === 1) continue;
      const a = alphaAt(x - mx, y - my);
      if (a <= 0) continue;
      const o = (y * width + x) * 3;
      const s = shade - 1;
      for (let c = 0; c < 3; c++) {
        const v = sample(x - mx, y - my, c);
        // Highlight: scaled up and lifted in the garment's hue (dark cloth shows it); shadow: scaled down.
        const lit = s >= 0 ? v * (1 + s) + lift[c]! * s : v * shade;
        out[o + c] = Math.max(0, Math.min(255, Math.round(data[o + c]! * (1 - a) + lit * a)));
      }
    }
  }
  // The promise is a visible change: refused (and refunded) when the render barely differs.
  let changed = 0;
  for (let i = 0; i < out.length; i += 3)
    if (
      Math.max(
        Math.abs(out[i]! - data[i]!),
        Math.abs(out[i + 1]! - data[i + 1]!),
        Math.abs(out[i + 2]! - data[i + 2]!),
      ) > VISIBLE_LEVELS
    )
      changed++;
  if (changed < (region.width * MIN_CHANGED_SIDE) ** 2) throw changeNotVisibleError();
  return encodePng({ data: out, width, height, channels: 3 });
}
