/**
 * Small vector raster for the procedural garments: anti-aliased polygon coverage (from the
 * signed distance to the outline, so edges are smooth at any size) and Bézier outlines
 * flattened to polylines.
 */

export type Pt = [number, number];

/** A quadratic Bézier from a through control c to b, as `n` points (a excluded, b included). */
export function quad(a: Pt, c: Pt, b: Pt, n = 12): Pt[] {
  const out: Pt[] = [];
  for (let i = 1; i <= n; i++) {
    const t = i / n;
    const u = 1 - t;
    out.push([
      u * u * a[0] + 2 * u * t * c[0] + t * t * b[0],
      u * u * a[1] + 2 * u * t * c[1] + t * t * b[1],
    ]);
  }
  return out;
}

/**
 * Coverage (0..1) of a closed polygon on a width x height grid, anti-aliased: each row is
 * sampled on `sub` sub-scanlines and each inside span's exact horizontal overlap with every
 * pixel is summed (even-odd rule). Only the polygon's rows are visited.
 */
export function polygonCoverage(
  points: Pt[],
  width: number,
  height: number,
  _soft = 1,
  sub = 4,
): Float32Array {
  const cover = new Float32Array(width * height);
  const n = points.length;
  if (n < 3) return cover;
  let y0 = Infinity;
  let y1 = -Infinity;
  for (const [, y] of points) {
    y0 = Math.min(y0, y);
    y1 = Math.max(y1, y);
  }
  const xs: number[] = [];
  const w = 1 / sub;
  for (let y = Math.max(0, Math.floor(y0)); y <= Math.min(height - 1, Math.ceil(y1)); y++) {
    const row = y * width;
    for (let k = 0; k < sub; k++) {
      const cy = y + (k + 0.5) / sub;
      xs.length = 0;
      for (let i = 0; i < n; i++) {
        const [ax, ay] = points[i]!;
        const [bx, by] = points[(i + 1) % n]!;
        if (ay <= cy === by <= cy) continue;
        xs.push(ax + ((cy - ay) / (by - ay)) * (bx - ax));
      }
      xs.sort((a, b) => a - b);
      for (let j = 0; j + 1 < xs.length; j += 2) {
        const a = Math.max(0, xs[j]!);
        const b = Math.min(width, xs[j + 1]!);
        if (b <= a) continue;
        const fa = Math.floor(a);
        const fb = Math.min(width - 1, Math.floor(b));
        if (fa === fb) {
          cover[row + fa] = cover[row + fa]! + (b - a) * w;
          continue;
        }
        cover[row + fa] = cover[row + fa]! + (fa + 1 - a) * w;
        for (let x = fa + 1; x < fb; x++) cover[row + x] = cover[row + x]! + w;
        if (fb < width) cover[row + fb] = cover[row + fb]! + (b - fb) * w;
      }
    }
  }
  for (let i = 0; i < cover.length; i++) if (cover[i]! > 1) cover[i] = 1;
  return cover;
}
