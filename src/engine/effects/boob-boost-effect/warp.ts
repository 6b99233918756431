import type { BustRegion } from "./rules";

/**
 * The bust warp's geometry (the "bloat" of a retouching app's liquify tool), shared by the
 * rules (the pre-charge check that the change will show) and the render.
 *
 * One displacement field per side, centred on the side's fullest point (rules.ts `inspect`
 * places it from the shoulder keypoints). Its support is an egg-shaped ellipse, in shoulder
 * widths {@link WARP_AXES}: out to the midline on the inner side (the two sides meet there),
 * past the arm's outer edge on the outer side (so the torso's outline, or the sleeve over it,
 * moves outward), short of the shoulder line on the upper side and past the lower curve on the
 * lower side. Inside it the content moves away from the centre by
 * `BLOAT · p(q) · gain · offset`, with p(q) = (1 − q⁴)² (q: 0 at the centre, 1 on the rim):
 * nearly a uniform magnification by 1 / (1 − BLOAT) over the middle of the form (the surface
 * brought forward, towards the camera), then a smooth falloff to no motion, with zero slope, on
 * the rim. The gains {@link GAIN} damp the motion up (towards the collar and neck) and towards
 * the midline; they change smoothly across the centre (no crease). The map is one-to-one
 * (its Jacobian stays above 0.6: tested).
 */
export const WARP_AXES = { inner: 0.2, outer: 0.6, up: 0.4, down: 0.32 } as const;
/** Largest relative magnification, minus one, at the centre: 1 / (1 − 0.17) ≈ 1.2. */
export const BLOAT = 0.22;
/** Motion gains by direction: full outward and down, damped up and towards the midline. */
export const GAIN = { inner: 0.3, outer: 1, up: 0.85, down: 1 } as const;

const smoothstep = (e0: number, e1: number, v: number) => {
  const t = Math.max(0, Math.min(1, (v - e0) / (e1 - e0)));
  return t * t * (3 - 2 * t);
};

/** Where a point lies in one side's warp support: `q` (0 at the centre, 1 on the rim) and the offsets. */
export function warpCoords(
  region: BustRegion,
  side: 0 | 1,
  x: number,
  y: number,
): { q: number; u: number; v: number; qu: number; qv: number } {
  const [cx, cy] = region.centres[side];
  const out = side === 0 ? -1 : 1;
  const u = ((x - cx) * region.along[0] + (y - cy) * region.along[1]) * out;
  const v = (x - cx) * region.down[0] + (y - cy) * region.down[1];
  const W = region.width;
  // Upwards, the support stops short of the shoulder line (a short torso brings it closer).
  const depth = (cx - region.shoulderMid[0]) * region.down[0] + (cy - region.shoulderMid[1]) * region.down[1];
  const up = Math.max(0.05 * W, Math.min(WARP_AXES.up * W, depth * 0.92));
  const qu = u / (W * (u >= 0 ? WARP_AXES.outer : WARP_AXES.inner));
  const qv = v / (v >= 0 ? W * WARP_AXES.down : up);
  return { q: Math.hypot(qu, qv), u, v, qu, qv };
}

/**
 * How far the content moves at (x, y): the output pixel there takes its colour from
 * (x − mx, y − my). Zero outside both supports.
 */
export function warpAt(region: BustRegion, x: number, y: number): [number, number] {
  const [ax, ay] = region.along;
  const [dx, dy] = region.down;
  let mx = 0;
  let my = 0;
  for (const side of [0, 1] as const) {
    const { q, u, v, qu, qv } = warpCoords(region, side, x, y);
    if (q >= 1) continue;
    const q4 = q * q * q * q;
    const p = (1 - q4) * (1 - q4);
    const gu = GAIN.inner + (GAIN.outer - GAIN.inner) * smoothstep(-0.3, 0.3, qu);
    const gv = GAIN.up + (GAIN.down - GAIN.up) * smoothstep(-0.3, 0.3, qv);
    const mu = BLOAT * p * gu * u;
    const mv = BLOAT * p * gv * v;
    const out = side === 0 ? -1 : 1;
    mx += mu * out * ax + mv * dx;
    my += mu * out * ay + mv * dy;
  }
  return [mx, my];
}

/** Bounding box of both warp supports, clipped to the image: [x0, y0, x1, y1] inclusive. */
export function warpBox(region: BustRegion, w: number, h: number): [number, number, number, number] {
  const reach = region.width * Math.max(WARP_AXES.outer, WARP_AXES.up, WARP_AXES.down) + 2;
  const xs = region.centres.map((c) => c[0]);
  const ys = region.centres.map((c) => c[1]);
  return [
    Math.max(0, Math.floor(Math.min(...xs) - reach)),
    Math.max(0, Math.floor(Math.min(...ys) - reach)),
    Math.min(w - 1, Math.ceil(Math.max(...xs) + reach)),
    Math.min(h - 1, Math.ceil(Math.max(...ys) + reach)),
  ];
}

/**
 * The visible motion a render of this photo would give: the largest content motion over the
 * person's pixels inside the photo (`onPerson(x, y)`), in pixels. Sampled every other pixel.
 */
export function visibleShift(
  region: BustRegion,
  width: number,
  height: number,
  onPerson: (x: number, y: number) => boolean,
): number {
  const [x0, y0, x1, y1] = warpBox(region, width, height);
  let peak = 0;
  for (let y = y0; y <= y1; y += 2)
    for (let x = x0; x <= x1; x += 2) {
      if (!onPerson(x, y)) continue;
      const [mx, my] = warpAt(region, x, y);
      peak = Math.max(peak, Math.hypot(mx, my));
    }
  return peak;
}
