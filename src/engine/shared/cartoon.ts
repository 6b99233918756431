import sharp from "sharp";
import { transformRaw, type RawImage } from "./image-io";
import { sameSize, type Mask } from "./mask";

/**
 * Cartoon flattening shared by the sticker and emoji effects: texture smoothed away while
 * edges stay (median filters), a small image-specific palette without dithering (flat cel
 * colours; two or three tones per area give the soft shading), specks merged into their
 * surroundings, and thin ink lines where neighbouring flat areas differ strongly in lightness.
 */
export interface CartoonOptions {
  /** Palette size: fewer colours, flatter look. */
  colours: number;
  /** Long side of the working copy the flattening runs on. */
  workSide: number;
  /** Median window (odd) at the working size. */
  median: number;
  /** Ink colour for the inner lines. */
  ink: readonly [number, number, number];
  /** Lightness step (0..255) between flat areas that earns an ink line. */
  inkStep: number;
}

const luma = (d: Uint8Array, i: number) => 0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!;

/** Cartoonises the masked subject of a 3-channel image; pixels outside the mask are unspecified. */
export async function cartoonise(img: RawImage, mask: Mask, opts: CartoonOptions): Promise<RawImage> {
  if (img.channels !== 3) throw new Error("cartoonise: expects 3 channels");
  sameSize(img, mask);
  const { width, height } = img;
  const n = width * height;

  // Outside the subject: its mean colour, so the palette spends no entries on the background
  // and the smoothing does not pull the background into the subject's edge.
  const mean = [0, 0, 0];
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (!mask.data[i]) continue;
    for (let c = 0; c < 3; c++) mean[c] = mean[c]! + img.data[i * 3 + c]!;
    count++;
  }
  const prepared = Buffer.from(img.data);
  for (let i = 0; i < n; i++) {
    if (mask.data[i]) continue;
    for (let c = 0; c < 3; c++) prepared[i * 3 + c] = Math.round(mean[c]! / Math.max(1, count));
  }

  // Flattening works on a small copy: at a few hundred pixels the median filters remove
  // skin texture and stray strands, and the palette areas come out large and simple.
  const scale = Math.min(1, opts.workSide / Math.max(width, height));
  const sw = Math.max(1, Math.round(width * scale));
  const sh = Math.max(1, Math.round(height * scale));
  // Cartoon colour is brighter and a little more saturated than a photo's.
  const small = await transformRaw({ ...img, data: prepared }, (s) =>
    s
      .resize(sw, sh, { fit: "fill", kernel: "cubic" })
      .median(opts.median)
      .median(opts.median)
      .modulate({ saturation: 1.12, brightness: 1.05 })
      .linear(1.08, -6),
  );
  const quantized = await sharp(small.data, { raw: { width: sw, height: sh, channels: 3 } })
    .png({ palette: true, colours: opts.colours, dither: 0, effort: 7 })
    .toBuffer();
  // Back to full size with a smooth kernel, then every pixel snaps to the nearest palette
  // colour: the areas keep smooth, rounded borders instead of blocky ones.
  const flat = await sharp(quantized)
    .removeAlpha()
    .resize(width, height, { fit: "fill", kernel: "cubic" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  sameSize(img, flat.info);
  const paletteRgb = await sharp(quantized).removeAlpha().raw().toBuffer();
  const palette: number[] = [];
  for (let i = 0; i < paletteRgb.length; i += 3) {
    const key = (paletteRgb[i]! << 16) | (paletteRgb[i + 1]! << 8) | paletteRgb[i + 2]!;
    if (!palette.includes(key)) palette.push(key);
  }
  const pr = Int32Array.from(palette, (k) => k >> 16);
  const pg = Int32Array.from(palette, (k) => (k >> 8) & 255);
  const pb = Int32Array.from(palette, (k) => k & 255);
  // Nearest palette colour, cached per 5-bit-per-channel cell (the upscale makes many
  // in-between colours, but they repeat).
  const cache = new Int16Array(32768).fill(-1);
  let labels = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const r = flat.data[i * 3]!;
    const g = flat.data[i * 3 + 1]!;
    const b = flat.data[i * 3 + 2]!;
    const cell = ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3);
    let best = cache[cell]!;
    if (best < 0) {
      let bestD = Infinity;
      for (let k = 0; k < palette.length; k++) {
        const d = (r - pr[k]!) ** 2 + (g - pg[k]!) ** 2 + (b - pb[k]!) ** 2;
        if (d < bestD) {
          bestD = d;
          best = k;
        }
      }
      cache[cell] = best;
    }
    labels[i] = best;
  }
  // A majority filter: thin in-between strips left by the snapping join an area beside them.
  const votes = new Uint16Array(palette.length);
  const next = new Uint8Array(n);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const own = labels[i]!;
      // Inside an area (all four neighbours agree) the vote is already decided.
      if (
        x > 0 &&
        y > 0 &&
        x < width - 1 &&
        y < height - 1 &&
        labels[i - 1] === own &&
        labels[i + 1] === own &&
        labels[i - width] === own &&
        labels[i + width] === own
      ) {
        next[i] = own;
        continue;
      }
      let best = own;
      votes.fill(0);
      for (let dy = -1; dy <= 1; dy++) {
        const yy = Math.min(height - 1, Math.max(0, y + dy));
        for (let dx = -1; dx <= 1; dx++) {
          const l = labels[yy * width + Math.min(width - 1, Math.max(0, x + dx))]!;
          votes[l] = votes[l]! + 1;
          if (votes[l]! > votes[best]!) best = l;
        }
      }
      next[i] = best;
    }
  labels = next;

  const out = Buffer.alloc(n * 3);
  for (let i = 0; i < n; i++) {
    const key = palette[labels[i]!]!;
    out[i * 3] = key >> 16;
    out[i * 3 + 1] = (key >> 8) & 255;
    out[i * 3 + 2] = key & 255;
  }
  // Ink on the darker side of a strong step between neighbouring areas, inside the subject.
  const lum = Float32Array.from(palette, (k) => luma(Uint8Array.of(k >> 16, (k >> 8) & 255, k & 255), 0));
  for (let y = 0; y < height - 1; y++)
    for (let x = 0; x < width - 1; x++) {
      const i = y * width + x;
      for (const j of [i + 1, i + width]) {
        const a = lum[labels[i]!]!;
        const b = lum[labels[j]!]!;
        if (Math.abs(a - b) < opts.inkStep || !mask.data[i] || !mask.data[j]) continue;
        const dark = a < b ? i : j;
        out[dark * 3] = opts.ink[0];
        out[dark * 3 + 1] = opts.ink[1];
        out[dark * 3 + 2] = opts.ink[2];
      }
    }
  return { data: out, width, height, channels: 3 };
}
