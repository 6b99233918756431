/**
 * Broken contours joined: Canny breaks a garment's outline wherever its contrast dips (a fold's
 * shadow, an old print's low contrast, grain), and the scrap rule then drops the short pieces
 * in between, so a coat reads as scattered dashes. Each free end of a line (a pixel with one
 * neighbour) inside `where` looks ahead along its own direction (the last few pixels' heading,
 * within a cone of ±CONE) for another piece up to `reach` px away, and the two are joined by a
 * straight segment. A piece that finds nothing stays as it is.
 */

/** Half-angle (radians) of the cone a free end looks into. */
const CONE = 0.45;
/** Pixels walked back from a free end to find its heading. */
const HEADING = 7;

/** Joins (in place) free line ends inside `where` (>= 128) to the piece ahead of them. Returns the joins made. */
export function linkGaps(lines: Uint8Array, w: number, h: number, where: Uint8Array, reach: number): number {
  const n = w * h;
  // Pieces (8-connected) labelled, so a free end never joins itself.
  const label = new Int32Array(n);
  const queue = new Int32Array(n);
  let count = 0;
  for (let s = 0; s < n; s++) {
    if (!lines[s] || label[s]) continue;
    label[s] = ++count;
    let head = 0;
    let tail = 0;
    queue[tail++] = s;
    while (head < tail) {
      const p = queue[head++]!;
      const x = p % w;
      const y = (p - x) / w;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          const yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
          const q = yy * w + xx;
          if (lines[q] && !label[q]) {
            label[q] = count;
            queue[tail++] = q;
          }
        }
    }
  }
  const neighbours = (p: number): number[] => {
    const x = p % w;
    const y = (p - x) / w;
    const out: number[] = [];
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++) {
        if (!dx && !dy) continue;
        const xx = x + dx;
        const yy = y + dy;
        if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
        if (lines[yy * w + xx]) out.push(yy * w + xx);
      }
    return out;
  };
  const joins: [number, number][] = [];
  for (let p = 0; p < n; p++) {
    if (!lines[p] || where[p]! < 128) continue;
    const first = neighbours(p);
    if (first.length !== 1) continue;
    // Walk back along the line for the heading.
    let prev = p;
    let cur = first[0]!;
    let steps = 1;
    while (steps < HEADING) {
      const next = neighbours(cur).filter((q) => q !== prev && !isNear(q, prev, w));
      if (next.length !== 1) break;
      prev = cur;
      cur = next[0]!;
      steps++;
    }
    if (steps < 3) continue;
    const px = p % w;
    const py = (p - px) / w;
    const bx = cur % w;
    const by = (cur - bx) / w;
    const len = Math.hypot(px - bx, py - by) || 1;
    const ux = (px - bx) / len;
    const uy = (py - by) / len;
    const cos = Math.cos(CONE);
    let best = -1;
    // Nearest pixel of another piece within the cone ahead.
    for (let d = 2; d <= reach && best < 0; d++) {
      let bestCos = cos;
      for (let oy = -d; oy <= d; oy++)
        for (let ox = -d; ox <= d; ox++) {
          if (Math.max(Math.abs(ox), Math.abs(oy)) !== d) continue;
          const xx = px + ox;
          const yy = py + oy;
          if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
          const q = yy * w + xx;
          if (!lines[q] || label[q] === label[p]) continue;
          const c = (ox * ux + oy * uy) / Math.hypot(ox, oy);
          if (c >= bestCos) {
            bestCos = c;
            best = q;
          }
        }
    }
    if (best >= 0) joins.push([p, best]);
  }
  for (const [a, b] of joins) drawSegment(lines, w, a, b);
  return joins.length;
}

function isNear(a: number, b: number, w: number): boolean {
  const ax = a % w;
  const bx = b % w;
  return Math.abs(ax - bx) <= 1 && Math.abs((a - ax) / w - (b - bx) / w) <= 1;
}

/** Sets the pixels of the straight segment from a to b (indices in a w-wide mask). */
function drawSegment(mask: Uint8Array, w: number, a: number, b: number): void {
  const ax = a % w;
  const ay = (a - ax) / w;
  const bx = b % w;
  const by = (b - bx) / w;
  const steps = Math.max(Math.abs(bx - ax), Math.abs(by - ay));
  for (let s = 0; s <= steps; s++) {
    const x = Math.round(ax + ((bx - ax) * s) / (steps || 1));
    const y = Math.round(ay + ((by - ay) * s) / (steps || 1));
    mask[y * w + x] = mask[a] || 1;
  }
}
