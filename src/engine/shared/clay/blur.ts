/**
 * Gaussian-like blur of a float field (three box passes per axis, running sums). Height maps
 * need float precision: an 8-bit blur leaves terraces that the lighting turns into stripes.
 */
export function blurField(src: Float32Array, width: number, height: number, sigma: number): Float32Array {
  // Box radius giving the requested sigma after three passes.
  const r = Math.max(1, Math.round((Math.sqrt(4 * sigma * sigma + 1) - 1) / 2));
  const a = Float32Array.from(src);
  const b = new Float32Array(src.length);
  for (let pass = 0; pass < 3; pass++) {
    boxLines(a, b, height, width, width, 1, r);
    boxLines(b, a, width, height, 1, width, r);
  }
  return a;
}

/**
 * Box filter along `count` lines of `length` samples (`lineStep` apart between lines,
 * `step` apart along a line). Edges are extended, so borders do not darken.
 */
function boxLines(
  src: Float32Array,
  dst: Float32Array,
  count: number,
  length: number,
  lineStep: number,
  step: number,
  r: number,
): void {
  const norm = 1 / (2 * r + 1);
  const last = length - 1;
  for (let line = 0; line < count; line++) {
    const base = line * lineStep;
    const at = (k: number) => src[base + (k < 0 ? 0 : k > last ? last : k) * step]!;
    let acc = 0;
    for (let k = -r; k <= r; k++) acc += at(k);
    for (let k = 0; k < length; k++) {
      dst[base + k * step] = acc * norm;
      acc += at(k + r + 1) - at(k - r);
    }
  }
}
