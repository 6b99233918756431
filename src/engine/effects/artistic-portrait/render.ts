import type { RenderRequest } from "@/core/ports/renderer";
import { decodeRaw, encodePng, firstImage, type EffectOutput } from "../../shared/image-io";
import { mulberry32 } from "../../shared/random";

/**
 * Artistic Portrait: a cinematic grade. A gentle film contrast curve with lifted blacks, a
 * split tone (teal shadows, warm highlights), an elliptical vignette and seeded film grain.
 * All four are one pass over the pixels driven by lookup tables, so 2 MP costs a few tens of ms.
 */

/** Strength of the split tone in 8-bit levels at full shadow / full highlight weight. */
export const SHADOW_TINT = [-16, 3, 18] as const; // teal: less red, more blue-green
export const HIGHLIGHT_TINT = [16, 4, -18] as const; // warm: more red, less blue
/** Fraction of brightness taken from the far corners by the vignette. */
export const VIGNETTE_STRENGTH = 0.42;
/** Grain standard deviation (8-bit levels) at mid-grey. */
const GRAIN_AMPLITUDE = 4.5;
/** Long side from which grain is clumped over about 2 px (film grain scales with the frame). */
const CLUMP_FROM = 1400;

const clamp01 = (v: number): number => (v < 0 ? 0 : v > 1 ? 1 : v);
const smoothstep = (a: number, b: number, v: number): number => {
  const t = clamp01((v - a) / (b - a));
  return t * t * (3 - 2 * t);
};

/** Film tone curve for one channel: a mild S for contrast, blacks lifted and whites rolled off. */
function toneCurve(): Float32Array {
  const lut = new Float32Array(256);
  for (let i = 0; i < 256; i++) {
    const x = i / 255;
    const s = x * x * (3 - 2 * x);
    const y = x + (s - x) * 0.45;
    lut[i] = (0.045 + 0.925 * y) * 255;
  }
  return lut;
}

/**
 * Seeded film grain with unit standard deviation: triangular white noise, and on large frames
 * clumped by a 1-2-1 blur in both directions so it reads as film grain rather than sensor noise.
 */
function grainField(width: number, height: number, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const n = width * height;
  const noise = new Float32Array(n);
  // Sum of two uniforms: triangular on [-1, 1], standard deviation 1/sqrt(6).
  const white = Math.sqrt(6);
  for (let i = 0; i < n; i++) {
    const r = rand();
    noise[i] = (((r & 0xffff) + (r >>> 16)) / 65536 - 1) * white;
  }
  if (Math.max(width, height) < CLUMP_FROM) return noise;
  const tmp = new Float32Array(n);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const l = noise[row + (x > 0 ? x - 1 : x)]!;
      const r = noise[row + (x < width - 1 ? x + 1 : x)]!;
      tmp[row + x] = (l + 2 * noise[row + x]! + r) * 0.25;
    }
  }
  // Each 1-2-1 pass keeps sqrt(6)/4 of the spread; 8/3 over both passes restores unit spread.
  for (let y = 0; y < height; y++) {
    const up = (y > 0 ? y - 1 : y) * width;
    const row = y * width;
    const down = (y < height - 1 ? y + 1 : y) * width;
    for (let x = 0; x < width; x++) {
      noise[row + x] = (tmp[up + x]! + 2 * tmp[row + x]! + tmp[down + x]!) * 0.25 * (8 / 3);
    }
  }
  return noise;
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const img = await decodeRaw(firstImage(req), { channels: 3, flatten: true });
  const { width, height, data } = img;

  const curve = toneCurve();
  // Split-tone offsets and grain amplitude by luma (0..255).
  const offR = new Float32Array(256);
  const offG = new Float32Array(256);
  const offB = new Float32Array(256);
  const grainAmp = new Float32Array(256);
  for (let i = 0; i < 256; i++) {
    const y = i / 255;
    const ws = 1 - smoothstep(0.05, 0.6, y);
    const wh = smoothstep(0.4, 0.95, y);
    offR[i] = SHADOW_TINT[0] * ws + HIGHLIGHT_TINT[0] * wh;
    offG[i] = SHADOW_TINT[1] * ws + HIGHLIGHT_TINT[1] * wh;
    offB[i] = SHADOW_TINT[2] * ws + HIGHLIGHT_TINT[2] * wh;
    // Film grain shows most in the mid-tones and least in deep shadow and clipped highlights.
    grainAmp[i] = GRAIN_AMPLITUDE * (0.35 + 2.6 * y * (1 - y));
  }

  // Vignette: an ellipse fitted to the frame; by squared normalised radius (0..2), 1024 steps.
  const VSTEPS = 1024;
  const vig = new Float32Array(VSTEPS + 1);
  for (let i = 0; i <= VSTEPS; i++) {
    const d = Math.sqrt((i / VSTEPS) * 2);
    vig[i] = 1 - VIGNETTE_STRENGTH * smoothstep(0.45, 1.38, d);
  }
  const nx2 = new Float32Array(width);
  for (let x = 0; x < width; x++) {
    const v = (x + 0.5 - width / 2) / (width / 2);
    nx2[x] = v * v;
  }

  const grain = grainField(width, height, req.seed);
  const out = Buffer.allocUnsafe(width * height * 3);
  for (let y = 0; y < height; y++) {
    const ny = (y + 0.5 - height / 2) / (height / 2);
    const ny2 = ny * ny;
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const o = i * 3;
      const r = curve[data[o]!]!;
      const g = curve[data[o + 1]!]!;
      const b = curve[data[o + 2]!]!;
      const l = (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.5) | 0;
      const v = vig[(((nx2[x]! + ny2) * VSTEPS) / 2) | 0] ?? vig[VSTEPS]!;
      const n = grain[i]! * grainAmp[l]!;
      // Clamped to 0..255.5 first: the Uint8 store truncates, so +0.5 rounds.
      out[o] = Math.max(0, Math.min(255, (r + offR[l]!) * v + n + 0.5));
      out[o + 1] = Math.max(0, Math.min(255, (g + offG[l]!) * v + n + 0.5));
      out[o + 2] = Math.max(0, Math.min(255, (b + offB[l]!) * v + n + 0.5));
    }
  }
  return encodePng({ data: out, width, height, channels: 3 });
}
