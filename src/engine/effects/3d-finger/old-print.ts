import type { RawImage } from "../../shared/image-io";
import { chromaSpread, PRINT_CHROMA } from "../../shared/print-damage";
import type { Face } from "../../vision/human";

/**
 * An old print made ready to be sculpted: a figure is painted from the photo's own colours,
 * so what the print suffered would be sculpted with the people (scratches as grooves across
 * the figure, dust as pock marks) and a faded, toned print gives a figure of one beige tone
 * whose faces barely show. For a monochrome or toned photo (chroma spread under
 * {@link PRINT_CHROMA}; on a colour photo thin bright lines are mostly real):
 * 1. scratches, creases and dust (long straight thin lines and tiny spots standing out of
 *    their surroundings; never the eyes, brows, nose or mouth of a found face,
 *    {@link faceFeatures}) are filled from their surroundings (Telea; repairPrintDamage in
 *    shared/print-damage.ts, called by render.ts);
 * 2. a torn-off part (bare paper: near-white, neutral, joined to the photo's border, more than
 *    {@link MIN_TEAR} of it) is painted in the print's backdrop colour (the mean of the print
 *    along its edge), so the cut-out does not take the tear's edge for a figure's outline;
 * 3. a faded print's tones are stretched: the 1st to 99th percentile of the lightness of the
 *    people (`region`) is spread to 8..247, at most 2.2 times, so the faces get their
 *    contrast back. The print's tone (its hue) is kept: all three channels are scaled alike.
 * A colour photo is returned unchanged.
 */

/** Levels the stretched lightness spans, and the largest gain. */
const LOW = 8;
const HIGH = 247;
const MAX_GAIN = 2.2;

const luma = (d: Uint8Array | Buffer, i: number) =>
  0.299 * d[i * 3]! + 0.587 * d[i * 3 + 1]! + 0.114 * d[i * 3 + 2]!;

/** The eyes, brows, nose and mouth of each face (discs from the mesh), never taken for damage. */
export function faceFeatures(faces: Face[], width: number, height: number): Uint8Array {
  const keep = new Uint8Array(width * height);
  for (const f of faces) {
    const m = f.mesh;
    const fw = Math.hypot(m[454]![0] - m[234]![0], m[454]![1] - m[234]![1]);
    // Eye centres (with the brows above), the nose tip and the mouth's centre.
    const discs: Array<[number, number, number]> = [
      [(m[33]![0] + m[133]![0]) / 2, (m[33]![1] + m[133]![1]) / 2 - fw * 0.04, fw * 0.2],
      [(m[263]![0] + m[362]![0]) / 2, (m[263]![1] + m[362]![1]) / 2 - fw * 0.04, fw * 0.2],
      [m[1]![0], m[1]![1], fw * 0.14],
      [(m[13]![0] + m[14]![0]) / 2, (m[13]![1] + m[14]![1]) / 2, fw * 0.22],
    ];
    for (const [cx, cy, r] of discs)
      for (let y = Math.max(0, Math.floor(cy - r)); y <= Math.min(height - 1, Math.ceil(cy + r)); y++)
        for (let x = Math.max(0, Math.floor(cx - r)); x <= Math.min(width - 1, Math.ceil(cx + r)); x++)
          if ((x - cx) ** 2 + (y - cy) ** 2 <= r * r) keep[y * width + x] = 1;
  }
  return keep;
}

/** A torn-off part smaller than this share of the photo is left alone. */
const MIN_TEAR = 0.01;

/**
 * Bare paper where a print is torn off: near-white (lightness over 215) and neutral (channel
 * spread under 18) pixels joined to the photo's border, painted in the print's colour along
 * the tear's edge. Returns how many pixels were painted (0: no tear).
 */
export function fillTear(src: RawImage): number {
  const { width: w, height: h, data } = src;
  const n = w * h;
  const paper = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const r = data[i * 3]!;
    const g = data[i * 3 + 1]!;
    const b = data[i * 3 + 2]!;
    if (luma(data, i) > 215 && Math.max(r, g, b) - Math.min(r, g, b) < 18) paper[i] = 1;
  }
  // Flood from the border through paper pixels.
  const torn = new Uint8Array(n);
  const stack: number[] = [];
  for (let x = 0; x < w; x++) stack.push(x, (h - 1) * w + x);
  for (let y = 0; y < h; y++) stack.push(y * w, y * w + w - 1);
  let count = 0;
  while (stack.length) {
    const i = stack.pop()!;
    if (!paper[i] || torn[i]) continue;
    torn[i] = 1;
    count++;
    const x = i % w;
    if (x > 0) stack.push(i - 1);
    if (x < w - 1) stack.push(i + 1);
    if (i >= w) stack.push(i - w);
    if (i < n - w) stack.push(i + w);
  }
  if (count < n * MIN_TEAR) return 0;
  // The print's colour along the tear: pixels a few pixels outside it.
  const reach = Math.max(3, Math.round(Math.max(w, h) / 200));
  const sum = [0, 0, 0];
  let m = 0;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (torn[i]) continue;
      const near =
        (x >= reach && torn[i - reach]) ||
        (x < w - reach && torn[i + reach]) ||
        (y >= reach && torn[i - reach * w]) ||
        (y < h - reach && torn[i + reach * w]);
      if (!near) continue;
      for (let c = 0; c < 3; c++) sum[c]! += data[i * 3 + c]!;
      m++;
    }
  if (!m) return 0;
  for (let i = 0; i < n; i++)
    if (torn[i]) for (let c = 0; c < 3; c++) data[i * 3 + c] = Math.round(sum[c]! / m);
  return count;
}

/** Whether the photo is a monochrome or toned print (its chroma spread is small). */
export const isPrint = (src: RawImage): boolean => chromaSpread(src.data) < PRINT_CHROMA;

/**
 * A faded print's tones stretched on the people (`region`, 0..255 per pixel, > 128 counts):
 * every channel scaled alike about the region's 1st percentile, so its 1st..99th percentile
 * of lightness spans {@link LOW}..{@link HIGH} (a gain of at most {@link MAX_GAIN}).
 * Returns the gain applied (1: nothing to do).
 */
export function stretchTones(rgb: Buffer, region: Uint8Array | Buffer, n: number): number {
  const hist = new Uint32Array(256);
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (region[i]! <= 128) continue;
    hist[Math.round(luma(rgb, i))]!++;
    count++;
  }
  if (count < 100) return 1;
  const at = (q: number) => {
    let s = 0;
    for (let v = 0; v < 256; v++) {
      s += hist[v]!;
      if (s >= count * q) return v;
    }
    return 255;
  };
  const lo = at(0.01);
  const hi = at(0.99);
  const gain = Math.min(MAX_GAIN, (HIGH - LOW) / Math.max(1, hi - lo));
  if (gain <= 1.05 && lo <= LOW * 2) return 1;
  // Lightness stretched, the tone's own chroma kept (the same shift on every channel).
  for (let i = 0; i < n; i++) {
    const l = luma(rgb, i);
    const shift = LOW + (l - lo) * gain - l;
    for (let c = 0; c < 3; c++)
      rgb[i * 3 + c] = Math.max(0, Math.min(255, Math.round(rgb[i * 3 + c]! + shift)));
  }
  return gain;
}
