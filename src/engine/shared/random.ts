/**
 * Seeded randomness for effects: the same request seed gives the same output, so results
 * are reproducible and tests can compare bytes.
 */

/** Small, fast, well-mixed 32-bit PRNG (mulberry32): unsigned 32-bit integers. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** The same sequence as floats in [0, 1). */
export function uniform(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() / 4294967296;
}
