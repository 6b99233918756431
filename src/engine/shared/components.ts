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
