/** Connected components of a mask (4-connected): each set pixel's label (1..count), 0 elsewhere. */
export function components(mask: Uint8Array, w: number, h: number): { labels: Int32Array; count: number } {
  const labels = new Int32Array(w * h);
  const stack: number[] = [];
  let count = 0;
  const visit = (q: number) => {
    labels[q] = count;
    stack.push(q);
  };
  for (let start = 0; start < w * h; start++) {
    if (!mask[start] || labels[start]) continue;
    labels[start] = ++count;
    stack.push(start);
    while (stack.length) {
      const p = stack.pop()!;
      const x = p % w;
      // Unrolled: an array of neighbours per pixel was most of the time on large masks.
      if (x > 0 && mask[p - 1] && !labels[p - 1]) visit(p - 1);
      if (x < w - 1 && mask[p + 1] && !labels[p + 1]) visit(p + 1);
      if (p >= w && mask[p - w] && !labels[p - w]) visit(p - w);
      if (p < w * (h - 1) && mask[p + w] && !labels[p + w]) visit(p + w);
    }
  }
  return { labels, count };
}

/** The mask's largest 4-connected component as a 0/1 mask (all zero when the mask is empty). */
export function largestComponent(mask: Uint8Array, w: number, h: number): Uint8Array {
  const { labels, count } = components(mask, w, h);
  const sizes = new Int32Array(count + 1);
  for (let i = 0; i < w * h; i++) sizes[labels[i]!]!++;
  let best = 0;
  for (let l = 1; l <= count; l++) if (!best || sizes[l]! > sizes[best]!) best = l;
  const out = new Uint8Array(w * h);
  if (best) for (let i = 0; i < w * h; i++) out[i] = labels[i] === best ? 1 : 0;
  return out;
}

/**
 * Each 8-connected piece of a mask, in scan order of its first pixel: `visit` gets the piece's
 * pixel indices (a view into a reused buffer: copy what must outlive the call) and may clear
 * them in the mask (pieces are disjoint, so that changes no other piece).
 */
export function forEachPiece8(
  mask: Uint8Array,
  w: number,
  h: number,
  visit: (piece: Int32Array) => void,
): void {
  const n = w * h;
  const seen = new Uint8Array(n);
  // Breadth first through one typed queue: the piece is the queue's filled part.
  const queue = new Int32Array(n);
  for (let s = 0; s < n; s++) {
    if (!mask[s] || seen[s]) continue;
    let head = 0;
    let tail = 0;
    queue[tail++] = s;
    seen[s] = 1;
    while (head < tail) {
      const p = queue[head++]!;
      const x = p % w;
      const y = (p - x) / w;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const q = yy * w + xx;
          if (mask[q] && !seen[q]) {
            seen[q] = 1;
            queue[tail++] = q;
          }
        }
      }
    }
    visit(queue.subarray(0, tail));
  }
}
