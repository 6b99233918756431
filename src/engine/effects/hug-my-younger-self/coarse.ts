import { blurField } from "../../shared/clay/blur";

/**
 * Wide blurs at a reduced resolution. The field is area-averaged down by an integer factor
 * (about a quarter of the blur's sigma, so the small field still resolves the blur), blurred
 * there in float, and read back by bilinear interpolation at any full-size coordinate. For the
 * wide blurs of this effect (sigmas of about 10 to 80 px) that is the same soft field as a
 * full-size blur while touching 10 to 1000 times fewer pixels. Float all the way: an 8-bit
 * blur (sharp) leaves terraces that show as stripes once divided by the blurred matte.
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
  return Math.max(1, Math.floor(sigma / 4));
}

/**
 * The sigma to blur the reduced field with, in its own pixels: the area average and the
 * bilinear read-back blur by about factor / 2 themselves, so that much is taken off.
 */
function coarseSigma(sigma: number, factor: number): number {
  if (factor === 1) return sigma;
  return Math.sqrt(Math.max(0.25, sigma * sigma - (factor * factor) / 4)) / factor;
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
  const s = coarseSigma(sigma, field.factor);
  const plane = new Float32Array(width * height);
  for (let c = 0; c < channels; c++) {
    for (let i = 0; i < plane.length; i++) plane[i] = data[i * channels + c]!;
    const b = blurField(plane, width, height, s);
    for (let i = 0; i < plane.length; i++) data[i * channels + c] = b[i]!;
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
