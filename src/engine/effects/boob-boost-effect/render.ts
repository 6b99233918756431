import { encodePng, type EffectOutput, type RawImage } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import type { Face } from "../../vision/human";
import { footprint, inspect, type BustRegion, type ChestPieces } from "./rules";

/**
 * Bust enhancement: one smooth volume per side, placed from the shoulder keypoints (and the
 * hips when seen) by rules.ts after the adult-consent, minor, one-person and body checks.
 *
 * Each side's volume is a bump h = (1 − q²)² over an egg-shaped footprint (q: rules.ts
 * `footprint`; wider towards the arm, a long upper slope, a shorter lower curve; the two
 * footprints meet at the midline). Warp: the garment moves down the torso by
 * {@link DROP}·h (one maximum per side, at the fullest point), and sideways and down (never
 * up) from the fullest point by {@link SPREAD} times h's slope (the cloth stretched over a
 * larger form); the field
 * is smooth, one-to-one (no fold), and zero with zero slope on the footprint's rim. Anything
 * stiff on the cloth (a name tag, a ribbon bar: rules.ts `chestPieces`) moves whole with the
 * field's mean over it, blended into the cloth's motion over a short margin, so it is never
 * distorted. Shading: the volume's surface (height {@link HEIGHT}·h) lit by the photo's key
 * light (Lambert, against the flat torso's), plus a soft fold under the lower curve; a change
 * of the garment's own lightness (a lift along its own mean colour for dark cloth), never a
 * painted colour. Everything is weighted by the person matte: only the torso changes.
 */

/** Largest move down the torso, in shoulder widths (at the fullest point). */
export const DROP = 0.05;
/** Largest outward spread from the fullest point, in shoulder widths (on the slopes). */
export const SPREAD = 0.008;
/** Height of the volume's surface for the shading, in shoulder widths. */
const HEIGHT = 0.09;
/** Occlusion under the form: lightness removed at the darkest of the fold below it. */
const FOLD = 0.15;
/** Margin over which a stiff piece's whole-piece motion blends into the cloth's, in shoulder widths. */
const RIGID_MARGIN = 0.08;
/** Pixels around a stiff piece that move with it (its anti-aliased edge). */
const EDGE = 2;

/** Maximum of 4q(1 − q²) (the bump's slope in footprint units), at q = 1/√3. */
const SLOPE_PEAK = (4 / Math.sqrt(3)) * (2 / 3);

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
 * pixel takes its colour from `(x − mx, y − my)`), `shade` is a lightness factor (1 =
 * unchanged), `h` the volume's height (0..1). All zero (shade 1) outside both footprints, except
 * the fold's shadow just under the lower curve.
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
  let mx = 0;
  let my = 0;
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
    const bump = w * w;
    h += bump;
    // Down the torso by DROP·h; outwards along the slope, in proportion to each half-axis.
    const spread = (SPREAD * W * 4 * w) / SLOPE_PEAK;
    const su = (spread * qu * a) / (W * 0.27);
    // Down only: pushed up, the upper slope's cloth would move against the drop (a ring of
    // still cloth around the form); a smooth ramp (no crease across the fullest point).
    const sv = (spread * ((qv + Math.hypot(qv, 0.15)) / 2) * b) / (W * 0.27);
    mx += DROP * W * bump * dx + su * out * ax + sv * dx;
    my += DROP * W * bump * dy + su * out * ay + sv * dy;
    // Surface slope (height HEIGHT·W·h) in image coordinates.
    const du = (-4 * w * qu * HEIGHT * W) / a;
    const dv = (-4 * w * qv * HEIGHT * W) / b;
    gx += du * out * ax + dv * dx;
    gy += du * out * ay + dv * dy;
  }
  if (h === 0 && fold === 0) return { mx, my, shade: 1, h };
  // Lambert on the surface's normal against the flat torso's; highlights at half strength
  // (cloth scatters, and a bright rim reads as a ball), never below 0.4 (ambient light).
  const nl = Math.hypot(gx, gy, 1);
  const lit = (-gx * light[0] - gy * light[1] + light[2]) / nl;
  const ratio = lit / Math.max(0.2, light[2]);
  const lambert = Math.max(0.4, ratio > 1 ? 1 + (ratio - 1) * 0.8 : ratio);
  return { mx, my, shade: lambert * (1 - FOLD * fold), h };
}

/** Separable box blur of a float map, in place (twice gives a soft tent). */
function boxBlur(v: Float32Array, w: number, h: number, r: number): void {
  const tmp = new Float32Array(v.length);
  for (let pass = 0; pass < 2; pass++) {
    for (let y = 0; y < h; y++) {
      let s = 0;
      for (let x = -r; x <= r; x++) s += v[y * w + Math.max(0, Math.min(w - 1, x))]!;
      for (let x = 0; x < w; x++) {
        tmp[y * w + x] = s / (2 * r + 1);
        s += v[y * w + Math.min(w - 1, x + r + 1)]! - v[y * w + Math.max(0, x - r)]!;
      }
    }
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let y = -r; y <= r; y++) s += tmp[Math.max(0, Math.min(h - 1, y)) * w + x]!;
      for (let y = 0; y < h; y++) {
        v[y * w + x] = s / (2 * r + 1);
        s += tmp[Math.min(h - 1, y + r + 1) * w + x]! - tmp[Math.max(0, y - r) * w + x]!;
      }
    }
  }
}

/**
 * The warp over the region's box: the content motion per pixel, with every stiff piece moving
 * whole (its mean motion), blended into the cloth's over {@link RIGID_MARGIN}.
 */
export function motionField(
  region: BustRegion,
  pieces: ChestPieces,
  width: number,
  height: number,
  light: Light,
): { box: [number, number, number, number]; mx: Float32Array; my: Float32Array; shade: Float32Array } {
  const margin = Math.ceil(region.width * RIGID_MARGIN * 2) + 2;
  const [bx0, by0, bx1, by1] = pieces.box;
  const x0 = Math.max(0, bx0 - margin);
  const y0 = Math.max(0, by0 - margin);
  const x1 = Math.min(width - 1, bx1 + margin);
  const y1 = Math.min(height - 1, by1 + Math.round(region.width * 0.1) + margin);
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
  if (pieces.sizes.length) {
    const pw = bx1 - bx0 + 1;
    const sumX = new Float64Array(pieces.sizes.length);
    const sumY = new Float64Array(pieces.sizes.length);
    for (let k = 0; k < pieces.label.length; k++) {
      const l = pieces.label[k]!;
      if (!l) continue;
      const x = bx0 + (k % pw);
      const y = by0 + Math.floor(k / pw);
      const j = (y - y0) * w + x - x0;
      sumX[l - 1]! += mx[j]!;
      sumY[l - 1]! += my[j]!;
    }
    // Each piece's weight: 1 on it, falling to 0 over the margin; the blend of all pieces'
    // whole motions replaces the cloth's where they weigh.
    const weight = new Float32Array(w * h);
    const wx = new Float32Array(w * h);
    const wy = new Float32Array(w * h);
    for (let k = 0; k < pieces.label.length; k++) {
      const l = pieces.label[k]!;
      if (!l) continue;
      const j = (by0 + Math.floor(k / pw) - y0) * w + bx0 + (k % pw) - x0;
      weight[j] = 1;
      wx[j] = sumX[l - 1]! / pieces.sizes[l - 1]!;
      wy[j] = sumY[l - 1]! / pieces.sizes[l - 1]!;
    }
    // The piece's soft edge (anti-aliasing, a shadow line) moves with it: grown by EDGE pixels.
    for (let pass = 0; pass < EDGE; pass++) {
      const grown = new Float32Array(weight);
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          const j = y * w + x;
          if (weight[j]) continue;
          for (const n of [
            x > 0 ? j - 1 : -1,
            x < w - 1 ? j + 1 : -1,
            y > 0 ? j - w : -1,
            y < h - 1 ? j + w : -1,
          ])
            if (n >= 0 && weight[n]) {
              grown[j] = 1;
              wx[j] = wx[n]!;
              wy[j] = wy[n]!;
              break;
            }
        }
      weight.set(grown);
    }
    const r = Math.max(1, Math.round(region.width * RIGID_MARGIN * 0.5));
    // Soften around the (grown) piece, which itself keeps weight 1.
    const solid = new Float32Array(weight);
    boxBlur(weight, w, h, r);
    const mxW = new Float32Array(w * h);
    const myW = new Float32Array(w * h);
    for (let j = 0; j < w * h; j++) {
      mxW[j] = wx[j]! * solid[j]!;
      myW[j] = wy[j]! * solid[j]!;
    }
    boxBlur(mxW, w, h, r);
    boxBlur(myW, w, h, r);
    for (let j = 0; j < w * h; j++) {
      if (weight[j]! <= 0) continue;
      // The blurred mean motion of nearby pieces; on a piece itself exactly its own.
      const t = solid[j] ? 1 : smoothstep(0, 0.5, weight[j]!);
      const px = solid[j] ? wx[j]! : mxW[j]! / weight[j]!;
      const py = solid[j] ? wy[j]! : myW[j]! / weight[j]!;
      mx[j] = mx[j]! * (1 - t) + px * t;
      my[j] = my[j]! * (1 - t) + py * t;
    }
  }
  return { box: [x0, y0, x1, y1], mx, my, shade };
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const { src, region, face, pieces, matte } = await inspect(req);
  const light = readLight(src, face);
  const { width, height, data } = src;
  const alpha = matte.alpha;
  const out = Buffer.from(data);
  const field = motionField(region, pieces, width, height, light);
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

  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const a = alpha[y * width + x]! / 255;
      if (a <= 0) continue;
      const k = (y - y0) * bw + x - x0;
      const mx = field.mx[k]!;
      const my = field.my[k]!;
      const shade = field.shade[k]!;
      if (mx === 0 && my === 0 && shade === 1) continue;
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
  return encodePng({ data: out, width, height, channels: 3 });
}
