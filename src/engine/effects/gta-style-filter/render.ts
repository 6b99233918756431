import sharp from "sharp";
import { sobel } from "../../shared/edges";
import { decodeRaw, encodePng, firstImage, type EffectOutput, type RawImage } from "../../shared/image-io";
import { opencv } from "../../shared/opencv";
import type { RenderRequest } from "@/core/ports/renderer";

/**
 * Game-poster illustration: clean flat cel-shaded regions and deliberate dark outlines.
 * 1. Edge-preserving smoothing (two bilateral passes, OpenCV) at reduced size wipes skin
 *    texture, stubble and noise while keeping the forms; a saturated, contrasty grade.
 * 2. libimagequant reduces it to a few flat colours without dithering.
 * 3. Speckles are merged away: every flat region smaller than a small share of the picture
 *    takes the colour of the neighbour it touches most, so faces read as clean shapes.
 * 4. Outlines are inked where two regions of clearly different lightness meet and along the
 *    smoothed picture's strongest long edges (short fragments dropped), about 3 px wide.
 */
const WORK_SIDE = 1280;
const SMOOTH_SIDE = 560;
export const POSTER_COLOURS = 16;
/** Outline ink: a very dark blue-black, as poster art inks. */
export const INK: readonly [number, number, number] = [18, 16, 28];
/** Regions smaller than this share of the picture are speckles, merged into a neighbour. */
const MIN_REGION_SHARE = 0.00035;
/** Lightness step between two regions that gets an outline. */
const OUTLINE_STEP = 42;

const luma = (d: Uint8Array | Buffer, i: number) =>
  (0.299 * d[i * 3]! + 0.587 * d[i * 3 + 1]! + 0.114 * d[i * 3 + 2]!) | 0;

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const src = await decodeRaw(firstImage(req), { channels: 3, flatten: true, maxSide: WORK_SIDE });
  const { width, height } = src;
  const smooth = await smoothForms(src);
  const flat = await sharp(smooth, { raw: { width, height, channels: 3 } })
    .modulate({ saturation: 1.45, brightness: 1.03 })
    .linear(1.15, -15)
    .png({ palette: true, colours: POSTER_COLOURS, dither: 0, effort: 2 })
    .toBuffer();
  const cel = await sharp(flat).removeAlpha().raw().toBuffer();
  mergeSpeckles(cel, width, height, Math.max(24, Math.round(width * height * MIN_REGION_SHARE)));

  const ink = await outlines(cel, smooth, width, height);
  for (let i = 0; i < width * height; i++) {
    if (ink[i]! > 127) {
      cel[i * 3] = INK[0];
      cel[i * 3 + 1] = INK[1];
      cel[i * 3 + 2] = INK[2];
    }
  }
  return encodePng({ data: cel, width, height, channels: 3 });
}

/** Bilateral smoothing at half size (texture goes, edges stay), back at full size. */
async function smoothForms(src: RawImage): Promise<Buffer> {
  const { width, height } = src;
  const scale = Math.min(1, SMOOTH_SIDE / Math.max(width, height));
  const sw = Math.max(1, Math.round(width * scale));
  const sh = Math.max(1, Math.round(height * scale));
  const small = await sharp(src.data, { raw: { width, height, channels: 3 } })
    .resize(sw, sh, { fit: "fill" })
    .raw()
    .toBuffer();
  const { cv } = await opencv();
  let a = cv.matFromArray(sh, sw, cv.CV_8UC3, small);
  let b = new cv.Mat();
  try {
    for (let pass = 0; pass < 2; pass++) {
      cv.bilateralFilter(a, b, 9, 45, 7, cv.BORDER_DEFAULT);
      [a, b] = [b, a];
    }
    const out = Buffer.from(a.data as Uint8Array);
    return await sharp(out, { raw: { width: sw, height: sh, channels: 3 } })
      .resize(width, height, { fit: "fill", kernel: "cubic" })
      .raw()
      .toBuffer();
  } finally {
    a.delete();
    b.delete();
  }
}

/** Recolours every same-colour region under `minArea` pixels with its main neighbour's colour. */
export function mergeSpeckles(rgb: Buffer, width: number, height: number, minArea: number): void {
  const n = width * height;
  const key = new Int32Array(n);
  for (let i = 0; i < n; i++) key[i] = (rgb[i * 3]! << 16) | (rgb[i * 3 + 1]! << 8) | rgb[i * 3 + 2]!;
  const seen = new Uint8Array(n);
  // One region at a time, breadth first: queue[0..tail) are its pixels once it is done.
  const queue = new Int32Array(n);
  const votes = new Map<number, number>();
  for (let start = 0; start < n; start++) {
    if (seen[start]) continue;
    const k = key[start]!;
    let head = 0;
    let tail = 0;
    queue[tail++] = start;
    seen[start] = 1;
    while (head < tail) {
      const p = queue[head++]!;
      const x = p % width;
      if (x > 0 && !seen[p - 1] && key[p - 1] === k) {
        seen[p - 1] = 1;
        queue[tail++] = p - 1;
      }
      if (x < width - 1 && !seen[p + 1] && key[p + 1] === k) {
        seen[p + 1] = 1;
        queue[tail++] = p + 1;
      }
      if (p >= width && !seen[p - width] && key[p - width] === k) {
        seen[p - width] = 1;
        queue[tail++] = p - width;
      }
      if (p + width < n && !seen[p + width] && key[p + width] === k) {
        seen[p + width] = 1;
        queue[tail++] = p + width;
      }
    }
    if (tail >= minArea) continue;
    // A speckle: the colour it borders most.
    votes.clear();
    for (let m = 0; m < tail; m++) {
      const p = queue[m]!;
      const x = p % width;
      if (x > 0 && key[p - 1] !== k) votes.set(key[p - 1]!, (votes.get(key[p - 1]!) ?? 0) + 1);
      if (x < width - 1 && key[p + 1] !== k) votes.set(key[p + 1]!, (votes.get(key[p + 1]!) ?? 0) + 1);
      if (p >= width && key[p - width] !== k)
        votes.set(key[p - width]!, (votes.get(key[p - width]!) ?? 0) + 1);
      if (p + width < n && key[p + width] !== k)
        votes.set(key[p + width]!, (votes.get(key[p + width]!) ?? 0) + 1);
    }
    let best = k;
    let most = 0;
    for (const [c, v] of votes) if (v > most) [best, most] = [c, v];
    if (best === k) continue;
    for (let m = 0; m < tail; m++) {
      const p = queue[m]!;
      key[p] = best;
      rgb[p * 3] = (best >> 16) & 255;
      rgb[p * 3 + 1] = (best >> 8) & 255;
      rgb[p * 3 + 2] = best & 255;
    }
  }
}

/** The ink mask: region borders with a clear lightness step, and long strong edges; ~3 px wide. */
async function outlines(cel: Buffer, smooth: Buffer, width: number, height: number): Promise<Buffer> {
  const n = width * height;
  const mask = new Uint8Array(n);
  for (let y = 0; y < height - 1; y++) {
    for (let x = 0; x < width - 1; x++) {
      const i = y * width + x;
      const l = luma(cel, i);
      if (
        Math.abs(l - luma(cel, i + 1)) >= OUTLINE_STEP ||
        Math.abs(l - luma(cel, i + width)) >= OUTLINE_STEP
      )
        mask[i] = 1;
    }
  }
  const gray = new Uint8Array(n);
  for (let i = 0; i < n; i++) gray[i] = luma(smooth, i);
  const { mag } = sobel(gray, width, height);
  const sorted = Float32Array.from(mag).sort();
  const strong = Math.max(60, sorted[Math.floor(sorted.length * 0.93)]!);
  for (let i = 0; i < n; i++) if (mag[i]! >= strong) mask[i] = 1;
  dropShortStrokes(mask, width, height, Math.max(12, Math.round(Math.max(width, height) / 40)));
  const lines = Buffer.from(mask.map((v) => (v ? 255 : 0)));
  // sharp's morphology treats dark as foreground: erode() grows these white line pixels.
  return sharp(lines, { raw: { width, height, channels: 1 } })
    .erode(1)
    .blur(0.8)
    .threshold(110)
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
}

/** Removes line fragments (8-connected) with fewer than `minLength` pixels: no ink speckle. */
function dropShortStrokes(mask: Uint8Array, width: number, height: number, minLength: number): void {
  const n = width * height;
  const seen = new Uint8Array(n);
  const queue = new Int32Array(n);
  for (let start = 0; start < n; start++) {
    if (!mask[start] || seen[start]) continue;
    let head = 0;
    let tail = 0;
    queue[tail++] = start;
    seen[start] = 1;
    while (head < tail) {
      const p = queue[head++]!;
      const x = p % width;
      const y = (p - x) / width;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= width) continue;
          const q = yy * width + xx;
          if (mask[q] && !seen[q]) {
            seen[q] = 1;
            queue[tail++] = q;
          }
        }
      }
    }
    if (tail < minLength) for (let m = 0; m < tail; m++) mask[queue[m]!] = 0;
  }
}
