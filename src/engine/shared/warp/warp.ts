import type { RawImage } from "../image-io";
import { triangulate, type Pt } from "./delaunay";

/**
 * Face alignment and mesh-driven warping, shared by the face effects (baby-face-generator,
 * hug-my-younger-self): a least-squares similarity transform between point sets, and a
 * piecewise-affine warp that moves an image so its control points land on target points.
 */

/** x' = a x - b y + tx, y' = b x + a y + ty (rotation, uniform scale, shift). */
export interface Similarity {
  a: number;
  b: number;
  tx: number;
  ty: number;
}

export function applySim(s: Similarity, [x, y]: Pt): [number, number] {
  return [s.a * x - s.b * y + s.tx, s.b * x + s.a * y + s.ty];
}

export function invertSim(s: Similarity): Similarity {
  const d = s.a * s.a + s.b * s.b;
  const a = s.a / d;
  const b = -s.b / d;
  return { a, b, tx: -(a * s.tx - b * s.ty), ty: -(b * s.tx + a * s.ty) };
}

/** The similarity that best maps `from` onto `to` (least squares over all pairs). */
export function fitSimilarity(from: readonly Pt[], to: readonly Pt[]): Similarity {
  const n = from.length;
  let fx = 0;
  let fy = 0;
  let tx = 0;
  let ty = 0;
  for (let i = 0; i < n; i++) {
    fx += from[i]![0];
    fy += from[i]![1];
    tx += to[i]![0];
    ty += to[i]![1];
  }
  fx /= n;
  fy /= n;
  tx /= n;
  ty /= n;
  let dot = 0;
  let cross = 0;
  let norm = 0;
  for (let i = 0; i < n; i++) {
    const px = from[i]![0] - fx;
    const py = from[i]![1] - fy;
    const qx = to[i]![0] - tx;
    const qy = to[i]![1] - ty;
    dot += px * qx + py * qy;
    cross += px * qy - py * qx;
    norm += px * px + py * py;
  }
  const a = dot / norm;
  const b = cross / norm;
  return { a, b, tx: tx - (a * fx - b * fy), ty: ty - (b * fx + a * fy) };
}

/** One image to warp and its control points (same order and count as the target points). */
export interface WarpSource {
  image: RawImage;
  points: readonly Pt[];
}

/**
 * Piecewise-affine warp: the target points are triangulated once, and each output pixel is
 * sampled (bilinear) from every source at the same barycentric position in its triangle.
 * The target points should include the frame's corners so every pixel is covered.
 */
export function warpPiecewise(
  target: readonly Pt[],
  sources: readonly WarpSource[],
  width: number,
  height: number,
): RawImage[] {
  const tris = triangulate(target);
  const outs = sources.map((s) => Buffer.alloc(width * height * s.image.channels));
  for (const [i0, i1, i2] of tris) {
    const [x0, y0] = target[i0]!;
    const [x1, y1] = target[i1]!;
    const [x2, y2] = target[i2]!;
    const det = (y1 - y2) * (x0 - x2) + (x2 - x1) * (y0 - y2);
    if (Math.abs(det) < 1e-9) continue;
    const left = Math.max(0, Math.floor(Math.min(x0, x1, x2)));
    const right = Math.min(width - 1, Math.ceil(Math.max(x0, x1, x2)));
    const top = Math.max(0, Math.floor(Math.min(y0, y1, y2)));
    const bottom = Math.min(height - 1, Math.ceil(Math.max(y0, y1, y2)));
    for (let y = top; y <= bottom; y++) {
      for (let x = left; x <= right; x++) {
        const l0 = ((y1 - y2) * (x - x2) + (x2 - x1) * (y - y2)) / det;
        const l1 = ((y2 - y0) * (x - x2) + (x0 - x2) * (y - y2)) / det;
        const l2 = 1 - l0 - l1;
        // A hair of tolerance so pixels on shared edges are never left empty.
        if (l0 < -1e-6 || l1 < -1e-6 || l2 < -1e-6) continue;
        for (let s = 0; s < sources.length; s++) {
          const { image, points } = sources[s]!;
          const sx = l0 * points[i0]![0] + l1 * points[i1]![0] + l2 * points[i2]![0];
          const sy = l0 * points[i0]![1] + l1 * points[i1]![1] + l2 * points[i2]![1];
          sampleInto(image, sx, sy, outs[s]!, (y * width + x) * image.channels);
        }
      }
    }
  }
  return outs.map((data, s) => ({ data, width, height, channels: sources[s]!.image.channels }));
}

/** Bilinear sample at (x, y), clamped to the image, written to out[at..]. */
export function sampleInto(img: RawImage, x: number, y: number, out: Buffer, at: number): void {
  const { data, width, height, channels: c } = img;
  const cx = Math.min(width - 1.001, Math.max(0, x));
  const cy = Math.min(height - 1.001, Math.max(0, y));
  const x0 = Math.floor(cx);
  const y0 = Math.floor(cy);
  const fx = cx - x0;
  const fy = cy - y0;
  const i00 = (y0 * width + x0) * c;
  const i10 = i00 + c;
  const i01 = i00 + width * c;
  const i11 = i01 + c;
  for (let k = 0; k < c; k++) {
    const top = data[i00 + k]! + (data[i10 + k]! - data[i00 + k]!) * fx;
    const bot = data[i01 + k]! + (data[i11 + k]! - data[i01 + k]!) * fx;
    out[at + k] = Math.round(top + (bot - top) * fy);
  }
}
