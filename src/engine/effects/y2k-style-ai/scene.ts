import type { Face } from "../../vision/human";
import type { Look } from "./look";
import { hslToRgb } from "../../shared/colour";

/** Mesh index of the chin's lowest point (MediaPipe FaceMesh). */
const CHIN = 152;

/**
 * Colours and the generated backgrounds of the Y2K look: the palette a prompt's hues give,
 * and the chrome / gradient / holographic / grid backdrops set behind a person.
 */

export type RGB = [number, number, number];

export const clamp01 = (v: number): number => (v < 0 ? 0 : v > 1 ? 1 : v);
export const smoothstep = (a: number, b: number, v: number): number => {
  const t = clamp01((v - a) / (b - a));
  return t * t * (3 - 2 * t);
};
const fract = (v: number): number => v - Math.floor(v);
/** A triangle wave 0..1..0 over one period: a fract() without its jump (no hard seam). */
const tri = (v: number): number => 1 - Math.abs(2 * fract(v) - 1);

/** HSL (hue in degrees, s and l in 0..1) to 8-bit-scale RGB floats. */
export const hsl = (h: number, s: number, l: number): RGB => hslToRgb(h, s, l);

/** Linear interpolation through colour stops at positions `at` (ascending, 0..1). */
export function ramp(stops: readonly RGB[], at: readonly number[], t: number, out: RGB): void {
  let k = 0;
  while (k < at.length - 2 && t > at[k + 1]!) k++;
  const a = stops[k]!;
  const b = stops[k + 1]!;
  const f = clamp01((t - at[k]!) / (at[k + 1]! - at[k]!));
  out[0] = a[0] + (b[0] - a[0]) * f;
  out[1] = a[1] + (b[1] - a[1]) * f;
  out[2] = a[2] + (b[2] - a[2]) * f;
}

export interface Palette {
  bg: [RGB, RGB, RGB];
  /** Split-tone colours of the grade: shadows and highlights. */
  shadow: RGB;
  high: RGB;
  /** Rim light around a person and the bloom's tint. */
  glow: RGB;
  sparkle: RGB;
  line: RGB;
}

export function palette(look: Look): Palette {
  const [h0, h1, h2] = look.hues;
  switch (look.tone) {
    case "pastel":
      return {
        bg: [hsl(h0, 0.85, 0.82), hsl(h1, 0.75, 0.78), hsl(h2, 0.85, 0.85)],
        shadow: hsl(h1, 0.6, 0.4),
        high: hsl(h0, 1, 0.9),
        glow: hsl(h0, 1, 0.82),
        sparkle: hsl(h2, 1, 0.95),
        line: hsl(h0, 1, 0.7),
      };
    case "night":
      return {
        bg: [hsl(h1, 0.85, 0.1), hsl(h0, 0.9, 0.3), hsl(h2, 0.9, 0.16)],
        shadow: hsl(h1, 0.9, 0.22),
        high: hsl(h2, 1, 0.82),
        glow: hsl(h0, 1, 0.6),
        sparkle: hsl(h2, 1, 0.9),
        line: hsl(h2, 1, 0.6),
      };
    default:
      return {
        bg: [hsl(h0, 0.95, 0.62), hsl(h1, 0.9, 0.55), hsl(h2, 0.95, 0.66)],
        shadow: hsl(h1, 0.85, 0.3),
        high: hsl(h0, 1, 0.86),
        glow: hsl(h2, 1, 0.66),
        sparkle: hsl(h2, 1, 0.94),
        line: hsl(h2, 1, 0.62),
      };
  }
}

/** The generated background at W x H (smooth patterns: the caller renders it at half size). */
export function background(look: Look, pal: Palette, W: number, H: number, rand: () => number): Buffer {
  const bg = Buffer.alloc(W * H * 3);
  const long = Math.max(W, H);
  const [h0, h1, h2] = look.hues;
  const c: RGB = [0, 0, 0];
  const p1 = rand() * Math.PI * 2;
  const p2 = rand() * Math.PI * 2;
  const p3 = rand() * Math.PI * 2;
  const ca = Math.cos(look.angle);
  const sa = Math.sin(look.angle);
  // Projection range of the frame's corners on the gradient direction.
  const proj = [0, W, 0, W].map((x, k) => (x * ca + (k < 2 ? 0 : H) * sa) / long);
  const tMin = Math.min(...proj);
  const tSpan = Math.max(...proj) - tMin || 1;
  const tint = look.metalTint;
  // Liquid chrome: a reflected sky (light, tinted), a dark horizon line, a tinted ground
  // reflection and a bright rim, mirrored so the bands never end in a seam.
  const chrome: RGB[] = [
    hsl(h0, tint * 0.9, 0.9),
    hsl(h0, tint, 0.74),
    hsl(h1, tint, 0.56),
    hsl(h1, tint * 0.7, 0.2),
    hsl(h2, tint, 0.5),
    hsl(h2, tint * 0.9, 0.8),
    hsl(h2, tint * 0.6, 0.96),
  ];
  const chromeAt = [0, 0.25, 0.47, 0.52, 0.6, 0.85, 1];
  const holoL = look.tone === "pastel" ? 0.82 : look.tone === "night" ? 0.42 : 0.72;
  const horizon = 0.62;

  for (let y = 0; y < H; y++) {
    const Y = y / long;
    const v = y / H;
    for (let x = 0; x < W; x++) {
      const X = x / long;
      const o = (y * W + x) * 3;
      switch (look.background) {
        case "gradient": {
          const t = (X * ca + Y * sa - tMin) / tSpan;
          ramp(pal.bg, [0, 0.5, 1], t + 0.04 * Math.sin(6.283 * (X * 1.3 - Y * 0.7) + p1), c);
          break;
        }
        case "chrome": {
          const t = tri(
            v * 0.62 +
              0.05 * Math.sin(6.283 * X * 1.3 + p1) +
              0.025 * Math.sin(6.283 * (X * 3.1 + Y * 0.9) + p2) +
              0.1,
          );
          ramp(chrome, chromeAt, t, c);
          // A soft diagonal sheen across the metal.
          const sheen = 0.22 * Math.exp(-(((X * 0.8 - Y * 0.6 - 0.1 - 0.15 * Math.sin(p3)) / 0.07) ** 2));
          c[0] += (255 - c[0]) * sheen;
          c[1] += (255 - c[1]) * sheen;
          c[2] += (255 - c[2]) * sheen;
          break;
        }
        case "holographic": {
          const hue =
            h0 +
            80 * Math.sin(6.283 * (0.7 * X + 0.5 * Y) + p1) +
            60 * Math.sin(6.283 * (1.9 * X - 1.3 * Y) + p2);
          const l = holoL + 0.08 * Math.sin(6.283 * (1.3 * X + 2.1 * Y) + p3);
          const rgb = hsl(hue, 0.75, l);
          c[0] = rgb[0];
          c[1] = rgb[1];
          c[2] = rgb[2];
          break;
        }
        case "grid": {
          if (v < horizon) {
            ramp(pal.bg, [0, 0.75, 1], v / horizon, c);
            const g = Math.exp(-(horizon - v) / 0.06) * 0.8;
            c[0] += (pal.glow[0] - c[0]) * g;
            c[1] += (pal.glow[1] - c[1]) * g;
            c[2] += (pal.glow[2] - c[2]) * g;
          } else {
            // A perspective floor grid: lines at equal depth steps and converging verticals.
            const d = v - horizon + 0.004;
            const pxV = 1 / H;
            const zh = 0.09 / d;
            const fz = fract(zh + p1);
            const lineH = 1 - smoothstep(0, 1.4 * ((0.09 / (d * d)) * pxV), Math.min(fz, 1 - fz));
            const zv = ((x - W / 2) / long / d) * 0.9;
            const fv = fract(zv);
            const lineV = 1 - smoothstep(0, (1.4 * 0.9) / long / d, Math.min(fv, 1 - fv));
            const line = Math.max(lineH, lineV) * smoothstep(0, 0.06, d);
            const base = pal.bg[0];
            c[0] = base[0] + (pal.line[0] - base[0]) * line;
            c[1] = base[1] + (pal.line[1] - base[1]) * line;
            c[2] = base[2] + (pal.line[2] - base[2]) * line;
          }
          break;
        }
      }
      bg[o] = Math.max(0, Math.min(255, c[0] + 0.5));
      bg[o + 1] = Math.max(0, Math.min(255, c[1] + 0.5));
      bg[o + 2] = Math.max(0, Math.min(255, c[2] + 0.5));
    }
  }
  return bg;
}

/**
 * The iridescent foil of the outfit, in place on `fg` (RGB bytes) with weight `zone`: the
 * fabric's shading (stretched between its own 5th and 97th percentiles, dark cloth lifted)
 * mapped through the palette from a deep shadow to a pale shine, the hue drifting across
 * the fabric and with the folds like oil on water.
 */
export function applyFoil(
  fg: Uint8ClampedArray,
  zone: Float32Array,
  gl: Buffer,
  folds: Buffer,
  W: number,
  H: number,
  hues: readonly [number, number, number],
  phase: number,
): void {
  const n = W * H;
  const long = Math.max(W, H);
  const hist = new Float64Array(256);
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (zone[i]! <= 0.5) continue;
    const b = folds[i]!;
    hist[b] = hist[b]! + 1;
    total++;
  }
  if (total < n * 0.01) return;
  let acc = 0;
  let lo = 0;
  let hi = 255;
  for (let b = 0; b < 256; b++) {
    acc += hist[b]!;
    if (acc < total * 0.05) lo = b;
    if (acc < total * 0.97) hi = b;
  }
  hi = Math.max(lo + 30, hi);
  const [h0, h1, h2] = hues;
  const stops: RGB[] = [hsl(h1, 0.7, 0.22), hsl(h0, 0.8, 0.48), hsl(h2, 0.85, 0.7), hsl(h2 + 30, 0.6, 0.94)];
  const at = [0, 0.38, 0.75, 1];
  const f: RGB = [0, 0, 0];
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const w = zone[i]!;
      if (w <= 0.01) continue;
      const o = i * 3;
      const tf = clamp01((folds[i]! - lo) / (hi - lo));
      const td = clamp01((gl[i]! - lo) / (hi - lo));
      const t = 0.2 + 0.72 * Math.pow(0.7 * tf + 0.3 * td, 0.8);
      const wave = Math.sin(6.283 * ((x + 0.6 * y) / long) * 1.4 + phase + 4 * tf);
      ramp(stops, at, clamp01(t + 0.12 * wave), f);
      const k = 0.75 * w;
      fg[o] = fg[o]! + (f[0] - fg[o]!) * k;
      fg[o + 1] = fg[o + 1]! + (f[1] - fg[o + 1]!) * k;
      fg[o + 2] = fg[o + 2]! + (f[2] - fg[o + 2]!) * k;
    }
}

/** The glow colour lightened: the core of the neon outline and of the frame's inner line. */
function neonCore(pal: Palette): RGB {
  return [0, 1, 2].map((ch) => 255 - (255 - pal.glow[ch]!) * 0.35) as RGB;
}

/**
 * A person over the backdrop: the matte's blend, a crisp light outline just outside the
 * silhouette (`near`: the matte spread a little) and a neon glow beyond it (`far`: spread
 * wide), screened in the palette's glow colour.
 */
export function composePerson(
  fg: Uint8ClampedArray,
  bg: Buffer,
  alpha: Float32Array,
  near: Buffer,
  far: Buffer,
  pal: Palette,
  n: number,
): Buffer {
  const out = Buffer.alloc(n * 3);
  const core = neonCore(pal);
  for (let i = 0; i < n; i++) {
    const a = alpha[i]!;
    const line = smoothstep(0.03, 0.2, near[i]! / 255) * (1 - a) * 0.95;
    const glow = Math.min(1, Math.max(0, far[i]! / 255 - a) * 3);
    for (let ch = 0; ch < 3; ch++) {
      let v = bg[i * 3 + ch]! * (1 - a) + fg[i * 3 + ch]! * a;
      v = 255 - ((255 - Math.max(0, Math.min(255, v))) * (255 - pal.glow[ch]! * glow)) / 255;
      v += (core[ch]! - v) * line;
      out[i * 3 + ch] = Math.max(0, Math.min(255, v + 0.5));
    }
  }
  return out;
}

/**
 * A scene inside a rounded window of the backdrop (a Y2K photo card), with a thin light line
 * and a soft glow along the window's edge.
 */
export function composeFrame(fg: Uint8ClampedArray, bg: Buffer, W: number, H: number, pal: Palette): Buffer {
  const out = Buffer.from(fg.buffer, fg.byteOffset, fg.length);
  const core = neonCore(pal);
  const short = Math.min(W, H);
  const m = short * 0.045;
  const R = short * 0.07;
  const lw = Math.max(1, short * 0.003);
  const ex = W / 2 - m - R;
  const ey = H / 2 - m - R;
  // Only the border band is touched; the window's inside is the photo as it is.
  const band = Math.ceil(m + R + 5 * lw);
  for (let y = 0; y < H; y++) {
    const qy = Math.abs(y + 0.5 - H / 2) - ey;
    const edgeRow = y < band || y >= H - band;
    for (let x = 0; x < W; x++) {
      if (!edgeRow && x === band) x = Math.max(band, W - band);
      const o = (y * W + x) * 3;
      const qx = Math.abs(x + 0.5 - W / 2) - ex;
      // Signed distance to the rounded window (negative inside).
      const d =
        qx <= 0 && qy <= 0
          ? Math.max(qx, qy) - R
          : Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - R;
      if (d < -4 * lw) continue;
      const inside = clamp01(0.5 - d);
      const line = Math.min(
        1,
        Math.exp(-((d / lw) ** 2)) + (d > 0 ? 0.35 * Math.exp(-((d / (lw * 5)) ** 2)) : 0),
      );
      for (let ch = 0; ch < 3; ch++) {
        let v = bg[o + ch]! + (fg[o + ch]! - bg[o + ch]!) * inside;
        v += (core[ch]! - v) * line;
        out[o + ch] = Math.max(0, Math.min(255, v + 0.5));
      }
    }
  }
  return out;
}

/**
 * Where the outfit is (0..1): below each face's chin, within a widening body band under the
 * face. The caller multiplies in the person matte and takes skin out.
 */
export function outfitZone(faces: readonly Face[], W: number, H: number): Float32Array {
  const zone = new Float32Array(W * H);
  for (const f of faces) {
    const [fx, , fw, fh] = f.box;
    const cx = fx + fw / 2;
    const chin = f.mesh.length > CHIN ? f.mesh[CHIN]![1] : f.box[1] + fh;
    const top = chin + fh * 0.12;
    for (let y = Math.max(0, Math.floor(top)); y < H; y++) {
      const dv = (y - top) / fh;
      const vy = smoothstep(0, 0.35, dv);
      const half = fw * (0.9 + 1.4 * Math.min(1, dv / 1.2));
      const x0 = Math.max(0, Math.floor(cx - half - fw * 0.3));
      const x1 = Math.min(W - 1, Math.ceil(cx + half + fw * 0.3));
      for (let x = x0; x <= x1; x++) {
        const vx = 1 - smoothstep(half, half + fw * 0.3, Math.abs(x - cx));
        const i = y * W + x;
        zone[i] = Math.max(zone[i]!, vx * vy);
      }
    }
  }
  return zone;
}
