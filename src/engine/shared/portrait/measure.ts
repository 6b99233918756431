/**
 * Measures the portrait effects' tests use on an output (RGB): the largest connected blob
 * of near-black pixels inside a region (a hole or bar in a garment), and the runs of bright
 * pixels across a row (the shirt's V between the lapels).
 */

export interface RgbView {
  data: Uint8Array;
  width: number;
  height: number;
  channels: number;
}

export const lumaAt = (img: RgbView, x: number, y: number): number => {
  const i = (y * img.width + x) * img.channels;
  return 0.299 * img.data[i]! + 0.587 * img.data[i + 1]! + 0.114 * img.data[i + 2]!;
};

/** Share of the region taken by its largest 4-connected blob of pixels with luma below `level`. */
export function largestDarkBlob(
  img: RgbView,
  region: { x0: number; y0: number; x1: number; y1: number },
  level: number,
): number {
  const w = region.x1 - region.x0;
  const h = region.y1 - region.y0;
  const dark = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) dark[y * w + x] = lumaAt(img, region.x0 + x, region.y0 + y) < level ? 1 : 0;
  const seen = new Uint8Array(w * h);
  const stack: number[] = [];
  let best = 0;
  for (let s = 0; s < w * h; s++) {
    if (!dark[s] || seen[s]) continue;
    let size = 0;
    seen[s] = 1;
    stack.push(s);
    while (stack.length) {
      const p = stack.pop()!;
      size++;
      const x = p % w;
      for (const q of [
        x > 0 ? p - 1 : -1,
        x < w - 1 ? p + 1 : -1,
        p >= w ? p - w : -1,
        p + w < w * h ? p + w : -1,
      ])
        if (q >= 0 && dark[q] && !seen[q]) {
          seen[q] = 1;
          stack.push(q);
        }
    }
    best = Math.max(best, size);
  }
  return best / (w * h);
}

/** The run of pixels brighter than `level` on row y that contains x (its width; 0 if x is not bright). */
export function brightRunWidth(img: RgbView, x: number, y: number, level: number): number {
  if (lumaAt(img, x, y) < level) return 0;
  let a = x;
  let b = x;
  while (a > 0 && lumaAt(img, a - 1, y) >= level) a--;
  while (b < img.width - 1 && lumaAt(img, b + 1, y) >= level) b++;
  return b - a + 1;
}
