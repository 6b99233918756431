/**
 * Grey-level morphology and box statistics on single-channel float planes, in linear time
 * (van Herk / Gil-Werman), because libvips' morphology works on binary masks only.
 */

import { boxMean } from "../../shared/box-mean";

/** Min (or max) over a (2r+1)-long window along every row or every column. */
function slide(src: Float32Array, w: number, h: number, r: number, rows: boolean, max: boolean) {
  const out = new Float32Array(src.length);
  const n = rows ? w : h;
  const lines = rows ? h : w;
  const k = 2 * r + 1;
  const len = n + 2 * r;
  const line = new Float32Array(len);
  const fwd = new Float32Array(len);
  const back = new Float32Array(len);
  const pick = max ? Math.max : Math.min;
  for (let l = 0; l < lines; l++) {
    for (let i = 0; i < len; i++) {
      const j = Math.min(n - 1, Math.max(0, i - r)); // edges repeat
      line[i] = src[rows ? l * w + j : j * w + l]!;
    }
    for (let i = 0; i < len; i++) fwd[i] = i % k === 0 ? line[i]! : pick(fwd[i - 1]!, line[i]!);
    for (let i = len - 1; i >= 0; i--)
      back[i] = i % k === k - 1 || i === len - 1 ? line[i]! : pick(back[i + 1]!, line[i]!);
    for (let i = 0; i < n; i++) out[rows ? l * w + i : i * w + l] = pick(back[i]!, fwd[i + 2 * r]!);
  }
  return out;
}

/** Grey erosion (min) over a (2r+1)² square. */
export const erode = (a: Float32Array, w: number, h: number, r: number) =>
  slide(slide(a, w, h, r, true, false), w, h, r, false, false);

/** Grey dilation (max) over a (2r+1)² square. */
export const dilate = (a: Float32Array, w: number, h: number, r: number) =>
  slide(slide(a, w, h, r, true, true), w, h, r, false, true);

/** Grey opening: removes bright structures narrower than the square. */
export const open = (a: Float32Array, w: number, h: number, r: number) => dilate(erode(a, w, h, r), w, h, r);

/**
 * Grows a 0/1 mask by r pixels (a (2r+1)² square). Binary, so each pass only tracks the
 * distance to the nearest set pixel: plain integer loops, several times faster than the
 * grey dilation, which matters because the watermark remover grows many full-size masks.
 */
export function growMask(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const rows = new Uint8Array(w * h);
  // Along rows: the distance to the last set pixel, left to right and right to left.
  for (let y = 0; y < h; y++) {
    const o = y * w;
    let last = -Infinity;
    for (let x = 0; x < w; x++) {
      if (mask[o + x]) last = x;
      if (x - last <= r) rows[o + x] = 1;
    }
    last = Infinity;
    for (let x = w - 1; x >= 0; x--) {
      if (mask[o + x]) last = x;
      if (last - x <= r) rows[o + x] = 1;
    }
  }
  // Along columns, a row at a time (memory order): the last set row of every column.
  const out = new Uint8Array(w * h);
  const last = new Float64Array(w);
  last.fill(-Infinity);
  for (let y = 0; y < h; y++)
    for (let x = 0, i = y * w; x < w; x++, i++) {
      if (rows[i]) last[x] = y;
      if (y - last[x]! <= r) out[i] = 1;
    }
  last.fill(Infinity);
  for (let y = h - 1; y >= 0; y--)
    for (let x = 0, i = y * w; x < w; x++, i++) {
      if (rows[i]) last[x] = y;
      if (last[x]! - y <= r) out[i] = 1;
    }
  return out;
}

/** For each pixel, the fraction of set pixels of a 0/1 mask in the (2r+1)² square around it. */
export function density(mask: Uint8Array, w: number, h: number, r: number): Float32Array {
  return boxMean(mask, w, h, r);
}
