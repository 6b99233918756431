/**
 * The photo behind a mask, estimated from the unmasked pixels around it (normalized
 * convolution): a weighted Gaussian mean that ignores masked pixels, widened step by step
 * until each pixel has enough unmasked neighbours. Computed at 1/4 scale, then upsampled.
 */
import sharp from "sharp";

const SCALE = 4;
const SIGMA = 3; // per step, in 1/4-scale pixels
const STEPS = 6;
// Unmasked weight (in pixel counts: the kernel is left unnormalized, so the weight grows
// with every step) below which a pixel waits for a wider step.
const MIN_WEIGHT = 0.3;

function gaussian(src: Float32Array, w: number, h: number, sigma: number, rows: boolean) {
  const r = Math.ceil(sigma * 2.5);
  const k: number[] = [];
  for (let i = -r; i <= r; i++) k.push(Math.exp(-(i * i) / (2 * sigma * sigma)));
  const out = new Float32Array(src.length);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      for (let c = 0; c < 4; c++) {
        let s = 0;
        for (let j = -r; j <= r; j++) {
          const xx = rows ? Math.min(w - 1, Math.max(0, x + j)) : x;
          const yy = rows ? y : Math.min(h - 1, Math.max(0, y + j));
          s += k[j + r]! * src[(yy * w + xx) * 4 + c]!;
        }
        out[(y * w + x) * 4 + c] = s;
      }
  return out;
}

/** RGB background estimate, full size, for RGB pixels `rgb` with `mask` (1 = ignore). */
export async function backgroundBehind(
  rgb: Buffer,
  mask: Uint8Array,
  width: number,
  height: number,
): Promise<Buffer> {
  const w = Math.max(1, Math.round(width / SCALE));
  const h = Math.max(1, Math.round(height / SCALE));
  // Sums of unmasked colour and their count per 1/4-scale cell (alpha-like weight channel).
  let acc = new Float32Array(w * h * 4);
  for (let y = 0; y < height; y++) {
    const cy = Math.min(h - 1, Math.floor(y / SCALE));
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (mask[i]) continue;
      const j = (cy * w + Math.min(w - 1, Math.floor(x / SCALE))) * 4;
      acc[j] = acc[j]! + rgb[i * 3]!;
      acc[j + 1] = acc[j + 1]! + rgb[i * 3 + 1]!;
      acc[j + 2] = acc[j + 2]! + rgb[i * 3 + 2]!;
      acc[j + 3] = acc[j + 3]! + 1;
    }
  }
  const small = Buffer.alloc(w * h * 3, 128);
  const done = new Uint8Array(w * h);
  let left = w * h;
  // Every cell settled: a wider step would change nothing that is kept.
  for (let step = 0; step < STEPS && left > 0; step++) {
    acc = gaussian(gaussian(acc, w, h, SIGMA, true), w, h, SIGMA, false);
    for (let i = 0; i < w * h; i++) {
      if (done[i]) continue;
      const weight = acc[i * 4 + 3]!;
      if (weight < MIN_WEIGHT && step < STEPS - 1) continue;
      done[i] = 1;
      left--;
      if (weight > 1e-3) for (let c = 0; c < 3; c++) small[i * 3 + c] = Math.round(acc[i * 4 + c]! / weight);
    }
  }
  return sharp(small, { raw: { width: w, height: h, channels: 3 } })
    .resize(width, height, { kernel: "linear", fit: "fill" })
    .raw()
    .toBuffer();
}
