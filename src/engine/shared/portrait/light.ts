import { smoothstep } from "./matte";
import type { PortraitFrame } from "./frame";

/**
 * What the portrait effects read from the face to match what they draw to the photo: the
 * side the light comes from, the illuminant's colour (from the whites of the eyes), whether
 * the photo is monochrome or toned (then garments are drawn in the photo's own tone), and
 * the face's exposure. Also the head zone: the part of the matte that is the head, hair and
 * neck, so shoulders of people leaning in (whose faces may be hidden) are dropped.
 */

export interface FaceLight {
  /** -1: light from the image's left, +1: from its right; strength 0..1. */
  side: -1 | 1;
  strength: number;
  /** Per-channel gains of the illuminant, around 1. */
  gains: [number, number, number];
  /** Monochrome or toned photo: the tint (unit-mean RGB) its greys carry. */
  mono: boolean;
  tint: [number, number, number];
  /** Mean face luminance, 0..255. */
  faceLuma: number;
}

const RIGHT_EYE = [33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246];
const LEFT_EYE = [263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466];

const luma = (r: number, g: number, b: number) => 0.299 * r + 0.587 * g + 0.114 * b;

export function readFaceLight(frame: PortraitFrame): FaceLight {
  const { width: W, height: H, rgb, geo } = frame;
  const [bx, by, bw, bh] = geo.box;
  // Light side: the face's two halves (cheeks and forehead, eyes excluded by the rows).
  let left = 0;
  let right = 0;
  let nl = 0;
  let nr = 0;
  let sat = 0;
  const sum = [0, 0, 0];
  let n = 0;
  for (let y = Math.max(0, Math.round(by + bh * 0.15)); y < Math.min(H, by + bh * 0.85); y++)
    for (let x = Math.max(0, Math.round(bx + bw * 0.15)); x < Math.min(W, bx + bw * 0.85); x++) {
      const i = (y * W + x) * 3;
      const r = rgb[i]!;
      const g = rgb[i + 1]!;
      const b = rgb[i + 2]!;
      const l = luma(r, g, b);
      if (x < geo.cx) {
        left += l;
        nl++;
      } else {
        right += l;
        nr++;
      }
      const mx = Math.max(r, g, b);
      sat += mx > 0 ? (mx - Math.min(r, g, b)) / mx : 0;
      sum[0]! += r;
      sum[1]! += g;
      sum[2]! += b;
      n++;
    }
  const ml = left / Math.max(1, nl);
  const mr = right / Math.max(1, nr);
  const faceLuma = (left + right) / Math.max(1, nl + nr);
  const side: -1 | 1 = ml >= mr ? -1 : 1;
  const strength = Math.min(1, Math.abs(ml - mr) / Math.max(20, faceLuma) / 0.3);
  const meanSat = sat / Math.max(1, n);
  const mono = meanSat < 0.14;
  const m = (sum[0]! + sum[1]! + sum[2]!) / 3 || 1;
  const tint: [number, number, number] = [sum[0]! / m, sum[1]! / m, sum[2]! / m];

  // Illuminant: the brightest pixels inside the eye outlines (the whites of the eyes).
  const whites: number[][] = [];
  for (const eye of [RIGHT_EYE, LEFT_EYE]) {
    const pts = eye.map((k) => geo.mesh[k]!);
    const x0 = Math.max(0, Math.floor(Math.min(...pts.map((p) => p[0]))));
    const x1 = Math.min(W - 1, Math.ceil(Math.max(...pts.map((p) => p[0]))));
    const y0 = Math.max(0, Math.floor(Math.min(...pts.map((p) => p[1]))));
    const y1 = Math.min(H - 1, Math.ceil(Math.max(...pts.map((p) => p[1]))));
    for (let y = y0; y <= y1; y++)
      for (let x = x0; x <= x1; x++) {
        if (!inside(pts, x + 0.5, y + 0.5)) continue;
        const i = (y * W + x) * 3;
        whites.push([rgb[i]!, rgb[i + 1]!, rgb[i + 2]!]);
      }
  }
  let gains: [number, number, number] = [1, 1, 1];
  if (whites.length >= 12) {
    whites.sort((a, b) => luma(b[0]!, b[1]!, b[2]!) - luma(a[0]!, a[1]!, a[2]!));
    const top = whites.slice(0, Math.max(4, Math.round(whites.length * 0.25)));
    const c = [0, 1, 2].map((k) => top.reduce((s, p) => s + p[k]!, 0) / top.length);
    const cm = (c[0]! + c[1]! + c[2]!) / 3 || 1;
    gains = c.map((v) => Math.max(0.96, Math.min(1.04, v / cm))) as [number, number, number];
  }
  return { side, strength, gains, mono, tint, faceLuma };
}

function inside(pts: Array<[number, number]>, x: number, y: number): boolean {
  let c = false;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
    const [xi, yi] = pts[i]!;
    const [xj, yj] = pts[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) c = !c;
  }
  return c;
}

/** A colour as drawn in this photo: the illuminant's gains, or the photo's tone if monochrome. */
export function inPhotoColour(light: FaceLight, rgb: [number, number, number]): [number, number, number] {
  if (light.mono) {
    const l = luma(...rgb);
    return [l * light.tint[0], l * light.tint[1], l * light.tint[2]];
  }
  return [rgb[0] * light.gains[0], rgb[1] * light.gains[1], rgb[2] * light.gains[2]];
}

/**
 * How much of the photo each pixel keeps: the matte within the head zone, and below the
 * chin only the neck's column (the drawn garment is the body), fading between the two.
 */
export function headAlpha(frame: PortraitFrame, zone: Float32Array): Float64Array {
  const { width: W, height: H, alpha, geo } = frame;
  const out = new Float64Array(W * H);
  for (let y = 0; y < H; y++) {
    const narrow = smoothstep(geo.chinY + geo.fh * 0.1, geo.chinY + geo.fh * 0.35, y);
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const neckCol = 1 - smoothstep(geo.neck * 0.95, geo.neck * 1.15, Math.abs(x - geo.cx));
      out[i] = alpha[i]! * Math.min(1, zone[i]! * (1 - narrow) + neckCol * narrow);
    }
  }
  return out;
}

/**
 * Weight (0..1) of the head zone: the head's width is measured on the matte across the
 * crown (above the eyes, where people leaning in rarely are), and the zone keeps that
 * width with a little margin, fading out softly at its sides.
 */
export function headZone(frame: PortraitFrame): Float32Array {
  const { width: W, height: H, alpha, geo } = frame;
  const cx = Math.round(geo.cx);
  let top = -1;
  for (let y = 0; y < H && top < 0; y++)
    for (let x = Math.max(0, Math.round(cx - geo.fw * 0.4)); x < Math.min(W, cx + geo.fw * 0.4); x++)
      if (alpha[y * W + x]! > 0.5) {
        top = y;
        break;
      }
  const halves: number[] = [];
  const centres: number[] = [];
  if (top >= 0 && geo.eyeY > top) {
    const d = geo.eyeY - top;
    for (let y = Math.round(top + d * 0.15); y < top + d * 0.6; y++) {
      const row = y * W;
      if (cx < 0 || cx >= W || alpha[row + cx]! <= 0.5) continue;
      let a = cx;
      let b = cx;
      while (a > 0 && alpha[row + a - 1]! > 0.5) a--;
      while (b < W - 1 && alpha[row + b + 1]! > 0.5) b++;
      halves.push((b - a) / 2);
      centres.push((a + b) / 2);
    }
  }
  const median = (v: number[], q: number) => [...v].sort((a, b) => a - b)[Math.floor(v.length * q)]!;
  const measured = halves.length ? median(halves, 0.6) : geo.fw * 0.7;
  const centre = centres.length ? median(centres, 0.5) : geo.cx;
  const half = Math.max(geo.fw * 0.55, Math.min(geo.fw * 1.1, measured)) + geo.fw * 0.08;
  // Below the eyes the zone narrows towards the jaw (plus room for hair beside it), so a
  // collar or a shoulder beside the chin is not taken for hair.
  const jaw = [
    234, 93, 132, 58, 172, 136, 150, 149, 176, 148, 152, 377, 400, 378, 379, 365, 397, 288, 361, 323, 454,
  ];
  const pts = jaw.map((k) => geo.mesh[k]!);
  const jawHalf = (y: number) => {
    let lo = Infinity;
    let hi = -Infinity;
    for (let k = 0; k + 1 < pts.length; k++) {
      const [ax, ay] = pts[k]!;
      const [bx, by] = pts[k + 1]!;
      if (ay <= y === by <= y) continue;
      const x = ax + ((y - ay) / (by - ay)) * (bx - ax);
      lo = Math.min(lo, x);
      hi = Math.max(hi, x);
    }
    return hi > lo ? (hi - lo) / 2 : geo.neck;
  };
  const zone = new Float32Array(W * H);
  const soft = geo.fw * 0.08;
  for (let y = 0; y < H; y++) {
    const t = smoothstep(geo.eyeY, geo.chinY, y);
    const h =
      t > 0
        ? half * (1 - t) + (Math.max(geo.neck, jawHalf(Math.min(y, geo.chinY - 1))) + geo.fw * 0.22) * t
        : half;
    const c = centre * (1 - t) + geo.cx * t;
    for (let x = 0; x < W; x++) zone[y * W + x] = 1 - smoothstep(h - soft, h + soft, Math.abs(x - c));
  }
  return zone;
}

/**
 * The neck under the chin, where a garment's neck opening shows it: opaque, and wherever
 * the photo has something other than skin there (its own collar, a scarf, a suit's ring)
 * the face's skin tone in shadow, so the new garment never frames the old one.
 */
export function fillNeck(frame: PortraitFrame): void {
  const { width: W, height: H, fg, alpha, geo, rgb } = frame;
  const [bx, by, bw, bh] = geo.box;
  const skin = [0, 0, 0];
  let n = 0;
  for (let y = Math.max(0, Math.round(by + bh * 0.55)); y < Math.min(H, by + bh * 0.75); y++)
    for (let x = Math.max(0, Math.round(bx + bw * 0.3)); x < Math.min(W, bx + bw * 0.7); x++) {
      const i = (y * W + x) * 3;
      for (let c = 0; c < 3; c++) skin[c] = skin[c]! + rgb[i + c]!;
      n++;
    }
  if (!n) return;
  const ref = skin.map((v) => v / n);
  const cb = (r: number, g: number, b: number) => -0.1687 * r - 0.3313 * g + 0.5 * b;
  const cr = (r: number, g: number, b: number) => 0.5 * r - 0.4187 * g - 0.0813 * b;
  const rcb = cb(ref[0]!, ref[1]!, ref[2]!);
  const rcr = cr(ref[0]!, ref[1]!, ref[2]!);
  const rl = luma(ref[0]!, ref[1]!, ref[2]!);
  const y0 = Math.max(0, Math.round(geo.chinY - geo.fh * 0.02));
  const y1 = Math.min(H, Math.round(geo.chinY + geo.fh * 0.6));
  for (let y = y0; y < y1; y++) {
    const down = (y - geo.chinY) / geo.fh;
    // Shadow under the chin, lifting a little lower down.
    const shade = 0.62 + 0.15 * smoothstep(0, 0.4, down);
    const enter = smoothstep(-0.02, 0.06, down);
    for (
      let x = Math.max(0, Math.round(geo.cx - geo.neck * 1.3));
      x < Math.min(W, geo.cx + geo.neck * 1.3);
      x++
    ) {
      const col = 1 - smoothstep(geo.neck * 0.9, geo.neck * 1.2, Math.abs(x - geo.cx));
      const w = col * enter;
      if (w <= 0) continue;
      const i = y * W + x;
      const r = fg[i * 3]!;
      const g = fg[i * 3 + 1]!;
      const b = fg[i * 3 + 2]!;
      const d =
        Math.hypot(cb(r, g, b) - rcb, cr(r, g, b) - rcr) + Math.max(0, rl * 0.45 - luma(r, g, b)) * 0.5;
      const notSkin = smoothstep(10, 22, d) * w;
      for (let c = 0; c < 3; c++) {
        const target = ref[c]! * shade;
        fg[i * 3 + c] = Math.round(fg[i * 3 + c]! * (1 - notSkin) + target * notSkin);
      }
      alpha[i] = Math.max(alpha[i]!, w);
    }
  }
}
