import { blurField } from "../../shared/clay/blur";

/**
 * Wide blurs at a reduced resolution. The field is area-averaged down by an integer factor
 * (about the square root of the blur's sigma, at most sigma / 2.5, so the small field still
 * resolves the blur), blurred there in float with box radii matched to the full-size blur, and
 * read back by bilinear interpolation at any full-size coordinate. For the wide blurs of this
 * effect (sigmas of about 5 to 80 px) that is the same soft field as a full-size blur
 * (coarse.test.ts) while touching 4 to 80 times fewer pixels. Float all the way: an 8-bit blur
 * (sharp) leaves terraces that show as stripes once divided by the blurred matte.
 */
export interface Coarse {
  data: Float32Array;
  width: number;
  height: number;
  channels: number;
  /** Full-size pixels per coarse pixel. */
  factor: number;
}

/** The reduction factor for a blur of `sigma` full-size pixels. */
export function factorFor(sigma: number): number {
  return Math.max(1, Math.min(Math.round(Math.sqrt(sigma)), Math.floor(sigma / 2.5)));
}

/**
 * The three box radii for the reduced field: the same blur as {@link blurField} at full size
 * (three boxes of radius r, variance r(r + 1)), less what the area average and the bilinear
 * read-back add (about factor^2 / 4), in reduced pixels. Mixing two neighbouring radii keeps
 * the match close even when the radii are small.
 */
function radii(sigma: number, factor: number): [number, number, number] {
  const r = Math.max(1, Math.round((Math.sqrt(4 * sigma * sigma + 1) - 1) / 2));
  const target = Math.max(0.5, (r * (r + 1) - (factor * factor) / 4) / (factor * factor));
  // Each pass of radius k adds k(k + 1) / 3.
  let best: [number, number, number] = [0, 0, 0];
  let bestErr = Infinity;
  const k0 = Math.max(0, Math.floor((Math.sqrt(4 * target + 1) - 1) / 2));
  for (let a = k0; a <= k0 + 1; a++)
    for (let b = a; b <= k0 + 1; b++)
      for (let c = b; c <= k0 + 1; c++) {
        const err = Math.abs((a * (a + 1) + b * (b + 1) + c * (c + 1)) / 3 - target);
        if (err < bestErr) [best, bestErr] = [[a, b, c], err];
      }
  return best;
}

/** Box filter of radius r along each row (or column, with the steps swapped); edges extended. */
function box(
  src: Float32Array,
  dst: Float32Array,
  count: number,
  length: number,
  lineStep: number,
  step: number,
  r: number,
): void {
  const norm = 1 / (2 * r + 1);
  const last = length - 1;
  for (let line = 0; line < count; line++) {
    const base = line * lineStep;
    let acc = 0;
    for (let k = -r; k <= r; k++) acc += src[base + Math.min(last, Math.max(0, k)) * step]!;
    for (let k = 0; k < length; k++) {
      dst[base + k * step] = acc * norm;
      acc += src[base + Math.min(last, k + r + 1) * step]! - src[base + Math.max(0, k - r) * step]!;
    }
  }
}

/** Area average of a one-channel field down by `factor` (partial edge blocks average what they hold). */
function shrink(src: Float32Array, width: number, height: number, factor: number): Coarse {
  const sw = Math.ceil(width / factor);
  const sh = Math.ceil(height / factor);
  const sum = new Float32Array(sw * sh);
  const count = new Float32Array(sw * sh);
  const block = Int32Array.from({ length: width }, (_, x) => (x / factor) | 0);
  for (let y = 0; y < height; y++) {
    const row = ((y / factor) | 0) * sw;
    for (let x = 0; x < width; x++) {
      const o = row + block[x]!;
      count[o]!++;
      sum[o]! += src[y * width + x]!;
    }
  }
  for (let o = 0; o < sw * sh; o++) sum[o]! /= count[o]!;
  return { data: sum, width: sw, height: sh, channels: 1, factor };
}

/** Each channel of a coarse field blurred by `sigma` full-size pixels (in place). */
function blurCoarse(field: Coarse, sigma: number): Coarse {
  const { width, height, channels, data } = field;
  const passes = field.factor === 1 ? null : radii(sigma, field.factor);
  const a = new Float32Array(width * height);
  const b = new Float32Array(width * height);
  for (let c = 0; c < channels; c++) {
    for (let i = 0; i < a.length; i++) a[i] = data[i * channels + c]!;
    let out: Float32Array = a;
    if (passes) {
      for (const r of passes) {
        if (r === 0) continue;
        box(a, b, height, width, width, 1, r);
        box(b, a, width, height, 1, width, r);
      }
    } else out = blurField(a, width, height, sigma);
    for (let i = 0; i < out.length; i++) data[i * channels + c] = out[i]!;
  }
  return field;
}

/** A one-channel field blurred by `sigma` full-size pixels, at a reduced resolution. */
export function blurred(src: Float32Array, width: number, height: number, sigma: number): Coarse {
  return blurCoarse(shrink(src, width, height, factorFor(sigma)), sigma);
}

/**
 * A person blurred alone: the matte-weighted blur of the photo divided by the blurred matte,
 * so near the person's edge the colours are the person's, not the old background's. Where
 * the blurred matte is almost empty (far from the person) the plain local average is used.
 * Returns the colours (3 channels) and the blurred matte.
 */
export function personBlur(
  rgb: Uint8Array,
  matte: Float32Array,
  width: number,
  height: number,
  sigma: number,
): { rgb: Coarse; matte: Coarse } {
  const f = factorFor(sigma);
  // One pass gathers the three block averages: the matte, the matte-weighted colour and the
  // plain colour.
  const sw = Math.ceil(width / f);
  const sh = Math.ceil(height / f);
  const m = new Float32Array(sw * sh);
  const weighted = new Float32Array(sw * sh * 3);
  const plain = new Float32Array(sw * sh * 3);
  const count = new Float32Array(sw * sh);
  const block = Int32Array.from({ length: width }, (_, x) => (x / f) | 0);
  for (let y = 0; y < height; y++) {
    const row = ((y / f) | 0) * sw;
    for (let x = 0; x < width; x++) {
      const o = row + block[x]!;
      const i = y * width + x;
      const k = matte[i]!;
      const r = rgb[i * 3]!;
      const g = rgb[i * 3 + 1]!;
      const b = rgb[i * 3 + 2]!;
      count[o]!++;
      m[o]! += k;
      weighted[o * 3]! += r * k;
      weighted[o * 3 + 1]! += g * k;
      weighted[o * 3 + 2]! += b * k;
      plain[o * 3]! += r;
      plain[o * 3 + 1]! += g;
      plain[o * 3 + 2]! += b;
    }
  }
  for (let o = 0; o < sw * sh; o++) {
    const inv = 1 / count[o]!;
    m[o]! *= inv;
    for (let c = 0; c < 3; c++) {
      weighted[o * 3 + c]! *= inv;
      plain[o * 3 + c]! *= inv;
    }
  }
  const field = (data: Float32Array, channels: number): Coarse => ({
    data,
    width: sw,
    height: sh,
    channels,
    factor: f,
  });
  const weight = blurCoarse(field(m, 1), sigma);
  const colour = blurCoarse(field(weighted, 3), sigma);
  const n = sw * sh;
  for (let i = 0; i < n; i++) {
    const w = weight.data[i]!;
    for (let c = 0; c < 3; c++)
      colour.data[i * 3 + c] = w > 0.02 ? colour.data[i * 3 + c]! / w : plain[i * 3 + c]!;
  }
  return { rgb: colour, matte: weight };
}

/**
 * Bilinear read of a coarse field at full-size coordinate (x, y) into `out` (one value per
 * channel). Coordinates are clamped to the field, as the full-size blur extends its edges.
 */
export function sample(field: Coarse, x: number, y: number, out: Float32Array): void {
  const { width, height, channels, factor, data } = field;
  let u = (x + 0.5) / factor - 0.5;
  let v = (y + 0.5) / factor - 0.5;
  u = u < 0 ? 0 : u > width - 1 ? width - 1 : u;
  v = v < 0 ? 0 : v > height - 1 ? height - 1 : v;
  const x0 = Math.min(width - 2, Math.floor(u));
  const y0 = Math.min(height - 2, Math.floor(v));
  if (x0 < 0 || y0 < 0) {
    // A field one coarse pixel wide or high: nearest sample.
    const o = (Math.round(v) * width + Math.round(u)) * channels;
    for (let c = 0; c < channels; c++) out[c] = data[o + c]!;
    return;
  }
  const fx = u - x0;
  const fy = v - y0;
  const i = (y0 * width + x0) * channels;
  const down = width * channels;
  for (let c = 0; c < channels; c++) {
    const a = data[i + c]! + (data[i + channels + c]! - data[i + c]!) * fx;
    const b = data[i + down + c]! + (data[i + down + channels + c]! - data[i + down + c]!) * fx;
    out[c] = a + (b - a) * fy;
  }
}
