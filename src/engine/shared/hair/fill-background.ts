/**
 * Fills the holes left by removed hair with the background around them. Portrait
 * backgrounds change mostly from top to bottom (sky, horizon, lake, wall, floor), so each
 * row of a hole is filled from the same row's background on both sides: the pixels beyond
 * each edge are mirrored into the hole (keeping their grain and bokeh, not a flat colour)
 * and cross-faded by distance. A light vertical blur then hides row-to-row seams.
 */

/**
 * `rgb` (3 channels) with `known` (1 = background to copy from). Returns the image with every
 * unknown pixel filled; known pixels are unchanged. Rows without any known pixel copy the
 * nearest filled row.
 */
export function fillFromBackground(rgb: Buffer, given: Uint8Array, width: number, height: number): Buffer {
  // The matte's soft rim still carries hair colour: copy from a little further out.
  const known = eroded(given, width, height, Math.round(Math.max(width, height) * 0.006) + 2);
  const out = Buffer.from(rgb);
  const hole = new Uint8Array(width * height);
  let lastFilled = -1;
  const emptyRows: number[] = [];
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let any = false;
    for (let x = 0; x < width; x++) if (known[row + x]) any = true;
    if (!any) {
      emptyRows.push(y);
      continue;
    }
    let x = 0;
    while (x < width) {
      if (known[row + x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < width && !known[row + x]) x++;
      const end = x; // the hole is [start, end)
      const hasLeft = start > 0;
      const hasRight = end < width;
      for (let h = start; h < end; h++) {
        const i = row + h;
        hole[i] = 1;
        const fromLeft = hasLeft ? mirror(known, row, width, start - 1, start - 1 - (h - start), -1) : -1;
        const fromRight = hasRight ? mirror(known, row, width, end, end + (end - 1 - h), 1) : -1;
        // Cross-fade: the nearer side dominates.
        const wl = fromLeft < 0 ? 0 : fromRight < 0 ? 1 : (end - h) / (end - start + 1);
        for (let c = 0; c < 3; c++) {
          const l = fromLeft < 0 ? 0 : rgb[fromLeft * 3 + c]!;
          const r = fromRight < 0 ? 0 : rgb[fromRight * 3 + c]!;
          out[i * 3 + c] = Math.round(l * wl + r * (1 - wl));
        }
      }
    }
    // Rows with no background at all take the nearest filled row (here: this one, upwards).
    for (const e of emptyRows) copyRow(out, hole, width, y, e);
    emptyRows.length = 0;
    lastFilled = y;
  }
  if (lastFilled >= 0) for (const e of emptyRows) copyRow(out, hole, width, lastFilled, e);
  return smoothHoles(out, hole, width, height);
}

/**
 * The pixel index to copy for a hole pixel: `at`, mirrored beyond the edge; when that lands
 * off the image or on another hole, the edge pixel itself.
 */
function mirror(
  known: Uint8Array,
  row: number,
  width: number,
  edge: number,
  at: number,
  dir: -1 | 1,
): number {
  const x = Math.min(width - 1, Math.max(0, at));
  return known[row + x] && (dir < 0 ? x <= edge : x >= edge) ? row + x : row + edge;
}

/** `mask` shrunk by `r` pixels (a separable min filter). */
function eroded(mask: Uint8Array, width: number, height: number, r: number): Uint8Array {
  const tmp = new Uint8Array(mask.length);
  const out = new Uint8Array(mask.length);
  for (let y = 0; y < height; y++) {
    let lastUnknown = -1e9;
    for (let x = 0; x < width; x++) {
      if (!mask[y * width + x]) lastUnknown = x;
      tmp[y * width + x] = x - lastUnknown > r ? 1 : 0;
    }
    lastUnknown = 1e9;
    for (let x = width - 1; x >= 0; x--) {
      if (!mask[y * width + x]) lastUnknown = x;
      if (lastUnknown - x <= r) tmp[y * width + x] = 0;
    }
  }
  for (let x = 0; x < width; x++) {
    let lastUnknown = -1e9;
    for (let y = 0; y < height; y++) {
      if (!tmp[y * width + x]) lastUnknown = y;
      out[y * width + x] = y - lastUnknown > r ? 1 : 0;
    }
    lastUnknown = 1e9;
    for (let y = height - 1; y >= 0; y--) {
      if (!tmp[y * width + x]) lastUnknown = y;
      if (lastUnknown - y <= r) out[y * width + x] = 0;
    }
  }
  return out;
}

function copyRow(out: Buffer, hole: Uint8Array, width: number, from: number, to: number): void {
  out.copy(out, to * width * 3, from * width * 3, (from + 1) * width * 3);
  hole.fill(1, to * width, (to + 1) * width);
}

/** A vertical 7-tap box blur over the filled pixels only. */
function smoothHoles(img: Buffer, hole: Uint8Array, width: number, height: number): Buffer {
  const out = Buffer.from(img);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!hole[i]) continue;
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        let n = 0;
        for (let dy = -3; dy <= 3; dy++) {
          const yy = y + dy;
          if (yy < 0 || yy >= height) continue;
          sum += img[(yy * width + x) * 3 + c]!;
          n++;
        }
        out[i * 3 + c] = Math.round(sum / n);
      }
    }
  return out;
}
