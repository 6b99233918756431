import { encodePng, type EffectOutput } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import { personMatte } from "../../vision/human";
import { inspect, type BustRegion } from "./rules";

/**
 * Bust enhancement: a volume warp of two discs placed from the shoulder keypoints (rules.ts),
 * after the adult-consent, minor and body checks, plus the shading of a fuller form.
 *
 * Warp: in each disc (radius 0.2 shoulder widths) a smooth displacement field pushes the
 * garment outward from the centre (a bulge, up to {@link BULGE} of the radius) and forward and
 * down along the torso ({@link DROP}); both fall to zero with zero slope at the rim, and stay
 * one-to-one (no fold). Shading: the form is a soft dome (a little below the disc's centre)
 * lit from above: its upper curve gets a highlight, its lower curve a shadow, and just under
 * it a soft crease. Both are a change of the garment's own lightness (its colours scaled, and
 * a lift along its own mean colour for dark cloth), never a painted colour. Everything is
 * weighted by the person matte, so only the torso changes; pixels outside the discs are the
 * input's, untouched.
 */

/** Largest outward (radial) displacement, in disc radii. */
export const BULGE = 0.16;
/** Largest forward/down displacement (along the torso), in disc radii. */
export const DROP = 0.22;
/** Highlight on the upper curve and shadow on the lower curve (fraction of lightness). */
const LIGHT = 0.32;
/** Crease under the form (fraction of lightness removed at its darkest). */
const CREASE = 0.4;
/** The dome: centre below the disc centre and radius, in disc radii. */
const DOME_DROP = 0.08;
const DOME_RADIUS = 0.8;

/** Peak of r(1 - r²)², so the radial profile's maximum is exactly BULGE. */
const RADIAL_PEAK = (1 / Math.sqrt(5)) * (1 - 1 / 5) ** 2;

const clamp01 = (v: number) => Math.max(0, Math.min(1, v));
const smoothstep = (e0: number, e1: number, v: number) => {
  const t = clamp01((v - e0) / (e1 - e0));
  return t * t * (3 - 2 * t);
};

/**
 * The warp and the shading at one pixel: `dx, dy` is where the output pixel's colour comes
 * from, relative to it (the content moves by minus this), `shade` is a lightness factor (1 =
 * unchanged). Zero displacement and `shade` 1 outside both discs.
 */
export function bustField(
  region: BustRegion,
  x: number,
  y: number,
): { dx: number; dy: number; shade: number } {
  const R = region.radius;
  const [ax, ay] = region.down;
  let dx = 0;
  let dy = 0;
  let shade = 1;
  for (const [cx, cy] of region.centres) {
    const px = (x - cx) / R;
    const py = (y - cy) / R;
    const r = Math.hypot(px, py);
    if (r >= 1) continue;
    const w = (1 - r * r) ** 2;
    // Outward: sample nearer the centre (the garment is pushed out); forward/down: sample from
    // higher up the torso (the content moves down).
    const radial = ((BULGE * r * w) / RADIAL_PEAK) * R;
    if (r > 0) {
      dx -= (radial * px) / r;
      dy -= (radial * py) / r;
    }
    dx -= ax * DROP * R * w;
    dy -= ay * DROP * R * w;

    // Along the torso (v, positive down) and across it (u), in radii, from the dome's centre.
    const v = px * ax + py * ay - DOME_DROP;
    const u = px * -ay + py * ax;
    const rho = Math.hypot(u, v) / DOME_RADIUS;
    // The dome (1 - rho²)² lit from above: its slope along the torso. Upper half +, lower half -.
    let s = 0;
    if (rho < 1) {
      const slope = (4 * (1 - rho * rho) * (v / DOME_RADIUS)) / 1.54; // max |slope| of the dome ~1.54
      s -= LIGHT * slope;
    }
    // The crease just under the dome, on its lower side only, gone at the disc's rim.
    const below = smoothstep(0, 0.5, v / Math.max(1e-6, Math.hypot(u, v)));
    const ring = Math.exp(-(((rho - 1.02) / 0.14) ** 2));
    s -= CREASE * ring * below;
    // Everything fades out before the rim, with zero slope.
    shade *= 1 + s * smoothstep(1, 0.82, r);
  }
  return { dx, dy, shade };
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const { src, region } = await inspect(req);
  const { width, height, data } = src;
  const matte = (await personMatte(src)).alpha;
  const out = Buffer.from(data);
  const R = region.radius;

  const sample = (x: number, y: number, c: number) => {
    // Bilinear: the warp moves pixels by fractions, nearest sampling would show steps.
    const x0 = Math.max(0, Math.min(width - 2, Math.floor(x)));
    const y0 = Math.max(0, Math.min(height - 2, Math.floor(y)));
    const fx = Math.min(1, Math.max(0, x - x0));
    const fy = Math.min(1, Math.max(0, y - y0));
    const i = (y0 * width + x0) * 3 + c;
    const row = width * 3;
    return (
      (data[i]! * (1 - fx) + data[i + 3]! * fx) * (1 - fy) +
      (data[i + row]! * (1 - fx) + data[i + row + 3]! * fx) * fy
    );
  };

  // The garment's mean colour on the discs: dark cloth is lifted along it (its own hue).
  let mr = 0;
  let mg = 0;
  let mb = 0;
  let count = 0;
  const x0 = Math.max(0, Math.floor(Math.min(...region.centres.map((c) => c[0])) - R));
  const x1 = Math.min(width - 1, Math.ceil(Math.max(...region.centres.map((c) => c[0])) + R));
  const y0 = Math.max(0, Math.floor(Math.min(...region.centres.map((c) => c[1])) - R));
  const y1 = Math.min(height - 1, Math.ceil(Math.max(...region.centres.map((c) => c[1])) + R));
  for (let y = y0; y <= y1; y++)
    for (let x = x0; x <= x1; x++) {
      if (!region.centres.some(([cx, cy]) => Math.hypot(x - cx, y - cy) < R)) continue;
      if (matte[y * width + x]! <= 128) continue;
      const o = (y * width + x) * 3;
      mr += data[o]!;
      mg += data[o + 1]!;
      mb += data[o + 2]!;
      count++;
    }
  const mean = count ? [mr / count, mg / count, mb / count] : [128, 128, 128];
  const meanLight = Math.max(1, Math.max(...mean));
  // Lift per unit of highlight: about 70 levels on the brightest channel, in the mean's hue.
  const lift = mean.map((m) => (70 * m) / meanLight);

  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const a = matte[y * width + x]! / 255;
      if (a <= 0) continue;
      const { dx, dy, shade } = bustField(region, x, y);
      if (dx === 0 && dy === 0 && shade === 1) continue;
      const o = (y * width + x) * 3;
      const sx = x + dx;
      const sy = y + dy;
      const k = shade - 1;
      for (let c = 0; c < 3; c++) {
        const v = sample(sx, sy, c);
        // Highlight: scaled up and lifted in the garment's hue (dark cloth shows it); shadow: scaled down.
        const lit = k >= 0 ? v * (1 + k) + lift[c]! * k : v * shade;
        out[o + c] = Math.max(0, Math.min(255, Math.round(data[o + c]! * (1 - a) + lit * a)));
      }
    }
  }
  return encodePng({ data: out, width, height, channels: 3 });
}
