import { boxMean } from "../../shared/portrait/matte";
import type { Face } from "../../vision/human";
import { fillPolygon, type Mask } from "../../shared/mask";
import type { Palette, RGB } from "./scene";

// Module-local helpers for the per-pixel loops (a call through another module's export is a
// property read on every pixel under the tsx runtime the server uses).
const clamp01 = (v: number): number => (v < 0 ? 0 : v > 1 ? 1 : v);
const smoothstep = (a: number, b: number, v: number): number => {
  const t = clamp01((v - a) / (b - a));
  return t * t * (3 - 2 * t);
};

/**
 * The Y2K colour work: an airbrushed (edge-preserving) smoothing, a skin model learned from
 * the photo's own faces, and the grade itself (vibrant, split-toned in the palette's
 * colours, skin kept at its own hue); black-and-white and toned prints are hand-coloured
 * first (colourise.ts).
 */

/** MediaPipe FaceMesh silhouette, in order around the face. */
export const FACE_OVAL = [
  10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377, 152, 148, 176, 149,
  150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109,
];

const cb = (r: number, g: number, b: number) => 128 - 0.168736 * r - 0.331264 * g + 0.5 * b;
const cr = (r: number, g: number, b: number) => 128 + 0.5 * r - 0.418688 * g - 0.081312 * b;
export const luma = (r: number, g: number, b: number) => 0.299 * r + 0.587 * g + 0.114 * b;

/**
 * True for a print that is mostly one tone: at least 85 % of its pixels within 10 chroma
 * levels of the median tone. Looser than {@link isMonochrome}: a torn or stained old print
 * (a blue tear, a brown stain ring) still counts, which decides whether its people are cut
 * out at all.
 */
export function mostlyOneTone(rgb: Uint8Array, n: number): boolean {
  const us = new Float32Array(n);
  const vs = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    us[i] = cb(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!);
    vs[i] = cr(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!);
  }
  const mu = Float32Array.from(us).sort()[n >> 1]!;
  const mv = Float32Array.from(vs).sort()[n >> 1]!;
  let near = 0;
  for (let i = 0; i < n; i++) if (Math.hypot(us[i]! - mu, vs[i]! - mv) <= 10) near++;
  return near >= n * 0.85;
}

/**
 * True for a black-and-white or single-toned (sepia, cyanotype) photo: the chroma of its
 * pixels barely varies around one tone.
 */
export function isMonochrome(rgb: Uint8Array, n: number): boolean {
  let sb = 0;
  let sr = 0;
  let sbb = 0;
  let srr = 0;
  for (let i = 0; i < n; i++) {
    const r = rgb[i * 3]!;
    const g = rgb[i * 3 + 1]!;
    const b = rgb[i * 3 + 2]!;
    const u = cb(r, g, b);
    const v = cr(r, g, b);
    sb += u;
    sr += v;
    sbb += u * u;
    srr += v * v;
  }
  const varB = sbb / n - (sb / n) ** 2;
  const varR = srr / n - (sr / n) ** 2;
  return Math.sqrt(Math.max(0, varB) + Math.max(0, varR)) < 4.5;
}

/** The faces' ovals (from the 468-point mesh) as a mask at W x H. */
export function faceOvals(faces: readonly Face[], W: number, H: number): Mask {
  const mask: Mask = { data: new Uint8Array(W * H), width: W, height: H };
  for (const f of faces) {
    if (f.mesh.length < 468) continue;
    fillPolygon(
      mask,
      FACE_OVAL.map((k) => [f.mesh[k]![0], f.mesh[k]![1]] as [number, number]),
    );
  }
  return mask;
}

export interface SkinModel {
  /** Mean and inverse covariance of (Cb, Cr) over the faces' skin. */
  mb: number;
  mr: number;
  ibb: number;
  ibr: number;
  irr: number;
  /** Mean and spread of the faces' luma. */
  ml: number;
  sl: number;
}

/**
 * The skin colour of the photo's own faces: (Cb, Cr) statistics over the face ovals'
 * mid-tone pixels (eyes, brows, nostrils and glare left out by a luma window). Null with no
 * usable face.
 */
export function skinModel(rgb: Uint8Array, ovals: Mask): SkinModel | null {
  const n = ovals.width * ovals.height;
  const ls: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!ovals.data[i]) continue;
    ls.push(luma(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!));
  }
  if (ls.length < 50) return null;
  const sorted = Float32Array.from(ls).sort();
  const lo = sorted[Math.floor(sorted.length * 0.15)]!;
  const hi = sorted[Math.floor(sorted.length * 0.95)]!;
  let k = 0;
  let sb = 0;
  let sr = 0;
  let sbb = 0;
  let sbr = 0;
  let srr = 0;
  let sl = 0;
  let sll = 0;
  for (let i = 0; i < n; i++) {
    if (!ovals.data[i]) continue;
    const r = rgb[i * 3]!;
    const g = rgb[i * 3 + 1]!;
    const b = rgb[i * 3 + 2]!;
    const l = luma(r, g, b);
    if (l < lo || l > hi) continue;
    const u = cb(r, g, b);
    const v = cr(r, g, b);
    k++;
    sb += u;
    sr += v;
    sbb += u * u;
    sbr += u * v;
    srr += v * v;
    sl += l;
    sll += l * l;
  }
  if (k < 30) return null;
  const mb = sb / k;
  const mr = sr / k;
  // Regularised: a face in flat light still accepts the neighbouring skin tones.
  const vbb = sbb / k - mb * mb + 12;
  const vrr = srr / k - mr * mr + 12;
  const vbr = sbr / k - mb * mr;
  const det = vbb * vrr - vbr * vbr;
  const ml = sl / k;
  return {
    mb,
    mr,
    ibb: vrr / det,
    ibr: -vbr / det,
    irr: vbb / det,
    ml,
    sl: Math.sqrt(Math.max(25, sll / k - ml * ml)),
  };
}

/** Skin likelihood (0..1) of a pixel by its colour under the model. */
export function skinLikelihood(m: SkinModel, r: number, g: number, b: number): number {
  const du = cb(r, g, b) - m.mb;
  const dv = cr(r, g, b) - m.mr;
  const d2 = du * du * m.ibb + 2 * du * dv * m.ibr + dv * dv * m.irr;
  // Dark and very bright pixels carry little chroma: they are not judged as skin.
  const l = luma(r, g, b);
  return (1 - smoothstep(5, 14, d2)) * smoothstep(25, 55, l);
}

/**
 * An airbrushed copy: a guided filter (He et al.) of the luma guided by itself, which
 * flattens texture and noise below `eps` contrast and keeps the edges, computed at half size
 * (the fast guided filter: its coefficients are smooth, so they are scaled up and applied at
 * full size). Returns the luma change per pixel (0..255 scale): added to every channel, it
 * smooths and colours keep their chroma.
 */
export function airbrush(rgb: Uint8Array, W: number, H: number, r: number, eps: number): Float32Array {
  const n = W * H;
  const g = new Float32Array(n);
  for (let i = 0; i < n; i++) g[i] = luma(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!) / 255;
  const w = W >> 1;
  const h = H >> 1;
  if (w < 2 || h < 2) return new Float32Array(n);
  const sx = W / w;
  const sy = H / h;
  // Half size by 2x2 means (the last odd row or column is folded into its neighbour).
  const gs = new Float32Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const x0 = Math.min(W - 1, Math.floor(x * sx));
      const y0 = Math.min(H - 1, Math.floor(y * sy));
      const x1 = Math.min(W - 1, x0 + 1);
      const y1 = Math.min(H - 1, y0 + 1);
      gs[y * w + x] = (g[y0 * W + x0]! + g[y0 * W + x1]! + g[y1 * W + x0]! + g[y1 * W + x1]!) / 4;
    }
  const gg = new Float32Array(w * h);
  for (let i = 0; i < w * h; i++) gg[i] = gs[i]! * gs[i]!;
  const rs = Math.max(1, Math.round(r / 2));
  const mg = boxMean(gs, w, h, rs);
  const mgg = boxMean(gg, w, h, rs);
  const a = new Float32Array(w * h);
  const b = new Float32Array(w * h);
  for (let i = 0; i < w * h; i++) {
    const v = mgg[i]! - mg[i]! * mg[i]!;
    a[i] = v / (v + eps);
    b[i] = mg[i]! - a[i]! * mg[i]!;
  }
  const ma = boxMean(a, w, h, rs);
  const mb = boxMean(b, w, h, rs);
  const out = new Float32Array(n);
  for (let y = 0; y < H; y++) {
    const fy = Math.max(0, Math.min(h - 1.001, (y + 0.5) / sy - 0.5));
    const y0 = fy | 0;
    const ty = fy - y0;
    for (let x = 0; x < W; x++) {
      const fx = Math.max(0, Math.min(w - 1.001, (x + 0.5) / sx - 0.5));
      const x0 = fx | 0;
      const tx = fx - x0;
      const k = y0 * w + x0;
      const a0 = ma[k]! + (ma[k + 1]! - ma[k]!) * tx;
      const a1 = ma[k + w]! + (ma[k + w + 1]! - ma[k + w]!) * tx;
      const b0 = mb[k]! + (mb[k + 1]! - mb[k]!) * tx;
      const b1 = mb[k + w]! + (mb[k + w + 1]! - mb[k + w]!) * tx;
      const i = y * W + x;
      out[i] = ((a0 + (a1 - a0) * ty) * g[i]! + b0 + (b1 - b0) * ty - g[i]!) * 255;
    }
  }
  return out;
}

export interface GradeOptions {
  /** Saturation gain of everything but skin. */
  saturation: number;
  /** Strength of the shadow and highlight tints. */
  shadowTint: number;
  highTint: number;
}

/**
 * The colour grade of one pixel (values 0..255, written to `out`): vibrant colour with the
 * palette's shadow and highlight tints; skin (weight `skin`) keeps its own hue and only gets
 * a little warmth and light, so faces never take the neon cast.
 */
export function gradePixel(c: RGB, skin: number, pal: Palette, o: GradeOptions, out: RGB): void {
  const l = luma(c[0], c[1], c[2]);
  const t = l / 255;
  // The tints move colour, not light: their chroma (colour minus its own luma) is added, so
  // shadows stay deep and highlights stay clean.
  const ws = o.shadowTint * (1 - t) * (1 - t) * 1.6;
  const wh = o.highTint * t * t * 1.6;
  const ls = luma(pal.shadow[0], pal.shadow[1], pal.shadow[2]);
  const lh = luma(pal.high[0], pal.high[1], pal.high[2]);
  // Skin: its own hue, a touch more colour, a gentle lift; the tints at a tenth.
  const ss = 1.08;
  for (let ch = 0; ch < 3; ch++) {
    const v = c[ch]!;
    const tint = (pal.shadow[ch]! - ls) * ws + (pal.high[ch]! - lh) * wh;
    const a = l + (v - l) * o.saturation + tint;
    const s = (l + (v - l) * ss) * 1.02 + 4 + tint * 0.1;
    out[ch] = a + (s - a) * skin;
  }
}

/** Stretches a luma to 0..1 between `lo` and `hi` with a gentle S-curve (a glossy contrast). */
export function glossCurve(l: number, lo: number, hi: number): number {
  const t = clamp01((l - lo) / (hi - lo));
  return t + 0.35 * t * (1 - t) * (t - 0.5) * 2;
}

export interface SubjectInput {
  rgb: Uint8Array;
  /** The airbrush's luma change per pixel. */
  soft: Float32Array;
  W: number;
  H: number;
  /** People's matte (0..1), or null for a scene. */
  alpha: Float32Array | null;
  ovals: Mask;
  skin: SkinModel | null;
  /** Skin weights known beforehand (a hand-coloured print's), or null. */
  skinHint: Float32Array | null;
  pal: Palette;
  grade: GradeOptions;
}

/**
 * The picture's own pixels in the Y2K look (clamped bytes) and each pixel's skin weight: the
 * airbrush (stronger on skin), then the colour grade and a glossy contrast.
 */
export function gradeSubject(p: SubjectInput): { fg: Uint8ClampedArray; skinW: Float32Array } {
  const { rgb, soft, alpha, ovals, skin, skinHint, pal } = p;
  const n = p.W * p.H;
  const fg = new Uint8ClampedArray(n * 3);
  const skinW = new Float32Array(n);
  const c: RGB = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    const o = i * 3;
    const r = rgb[o]!;
    const g = rgb[o + 1]!;
    const b = rgb[o + 2]!;
    let sk = 0;
    if (skin) {
      sk = skinLikelihood(skin, r, g, b) * (alpha ? alpha[i]! : 0.5);
      if (ovals.data[i]) sk = Math.max(sk, 0.9);
    }
    if (skinHint) sk = Math.max(sk, skinHint[i]!);
    skinW[i] = sk;
    const k = alpha ? 0.45 + 0.4 * sk : 0.3;
    const d = soft[i]! * k;
    c[0] = r + d;
    c[1] = g + d;
    c[2] = b + d;
    gradePixel(c, sk, pal, p.grade, c);
    const l = luma(c[0], c[1], c[2]);
    const t = glossCurve(l, 0, 255) * 255 - l;
    c[0] += t;
    c[1] += t;
    c[2] += t;
    fg[o] = c[0];
    fg[o + 1] = c[1];
    fg[o + 2] = c[2];
  }
  return { fg, skinW };
}
