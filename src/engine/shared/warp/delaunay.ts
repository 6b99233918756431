/**
 * Delaunay triangulation (Bowyer-Watson) of a few hundred points: the face mesh plus its
 * surrounding ring and the frame border, which the piecewise-affine warp needs as triangles.
 * Quadratic time is fine at this size and keeps the project free of another dependency.
 */
export type Pt = readonly [number, number];
export type Tri = [number, number, number];

interface Cell {
  a: number;
  b: number;
  c: number;
  cx: number;
  cy: number;
  r2: number;
}

function cell(pts: Pt[], a: number, b: number, c: number): Cell {
  const [ax, ay] = pts[a]!;
  const [bx, by] = pts[b]!;
  const [cx, cy] = pts[c]!;
  const d = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by));
  // Collinear triples get an infinite circumcircle: every later point invalidates them.
  if (Math.abs(d) < 1e-12) return { a, b, c, cx: 0, cy: 0, r2: Infinity };
  const a2 = ax * ax + ay * ay;
  const b2 = bx * bx + by * by;
  const c2 = cx * cx + cy * cy;
  const ux = (a2 * (by - cy) + b2 * (cy - ay) + c2 * (ay - by)) / d;
  const uy = (a2 * (cx - bx) + b2 * (ax - cx) + c2 * (bx - ax)) / d;
  return { a, b, c, cx: ux, cy: uy, r2: (ax - ux) ** 2 + (ay - uy) ** 2 };
}

/** Triangles (indices into `points`) covering the points' convex hull. */
export function triangulate(points: readonly Pt[]): Tri[] {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [x, y] of points) {
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  }
  const span = Math.max(maxX - minX, maxY - minY) * 20 + 1;
  const midX = (minX + maxX) / 2;
  const midY = (minY + maxY) / 2;
  const n = points.length;
  // A super-triangle far outside every point; its corners are dropped at the end.
  const pts: Pt[] = [...points, [midX - span, midY - span], [midX + span, midY - span], [midX, midY + span]];
  let cells: Cell[] = [cell(pts, n, n + 1, n + 2)];
  for (let i = 0; i < n; i++) {
    const [px, py] = pts[i]!;
    const edges = new Map<string, [number, number]>();
    const keep: Cell[] = [];
    for (const t of cells) {
      if ((px - t.cx) ** 2 + (py - t.cy) ** 2 < t.r2) {
        // The hole's boundary: edges that belong to exactly one removed triangle.
        for (const [u, v] of [
          [t.a, t.b],
          [t.b, t.c],
          [t.c, t.a],
        ] as const) {
          const key = u < v ? `${u},${v}` : `${v},${u}`;
          if (edges.has(key)) edges.delete(key);
          else edges.set(key, [u, v]);
        }
      } else keep.push(t);
    }
    for (const [u, v] of edges.values()) keep.push(cell(pts, u, v, i));
    cells = keep;
  }
  return cells.filter((t) => t.a < n && t.b < n && t.c < n).map((t) => [t.a, t.b, t.c]);
}
