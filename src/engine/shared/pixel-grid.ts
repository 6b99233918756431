import { MAX_SIDE, type RawImage } from "./image-io";

/**
 * Blows a cols x rows grid of RGB cells up to pixel art: every cell exactly k x k pixels,
 * k the largest integer keeping the long side near `targetLongSide` and at most MAX_SIDE.
 * Done by hand: a resampler could blend neighbouring cells at the seams.
 */
export function upscaleCells(
  cells: Uint8Array,
  cols: number,
  rows: number,
  targetLongSide: number,
): RawImage {
  const long = Math.max(cols, rows);
  const k = Math.max(1, Math.min(Math.floor(targetLongSide / long), Math.floor(MAX_SIDE / long)));
  const width = cols * k;
  const height = rows * k;
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    const rowStart = Math.floor(y / k) * cols;
    for (let x = 0; x < width; x++) {
      const c = (rowStart + Math.floor(x / k)) * 3;
      const o = (y * width + x) * 3;
      data[o] = cells[c]!;
      data[o + 1] = cells[c + 1]!;
      data[o + 2] = cells[c + 2]!;
    }
  }
  return { data, width, height, channels: 3 };
}
