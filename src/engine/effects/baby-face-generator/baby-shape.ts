import type { Pt } from "../../shared/warp/delaunay";

/**
 * MediaPipe FaceMesh landmarks the face effects need, and the "baby proportions" deformation
 * of a face shape: larger eyes, smaller nose and mouth, a shorter lower face with rounder
 * cheeks, and a higher forehead.
 */

export const FACE_OVAL = [
  10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377, 152, 148, 176, 149,
  150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109,
] as const;
export const RIGHT_EYE = [
  33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246,
] as const;
export const LEFT_EYE = [
  263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466,
] as const;
/** Eye corners, nose wings, mouth corners and the face's sides (for measuring proportions). */
export const MARKS = {
  rightEye: [33, 133],
  leftEye: [362, 263],
  nose: [98, 327],
  mouth: [61, 291],
  face: [234, 454],
} as const;
const NOSE = [1, 4, 5, 195, 98, 327] as const;
const MOUTH = [61, 291, 13, 14, 0, 17] as const;

export const centroid = (pts: readonly Pt[], idx: readonly number[]): [number, number] => {
  let x = 0;
  let y = 0;
  for (const i of idx) {
    x += pts[i]![0];
    y += pts[i]![1];
  }
  return [x / idx.length, y / idx.length];
};
export const dist = (p: Pt, q: Pt) => Math.hypot(p[0] - q[0], p[1] - q[1]);

/**
 * Scales points around `c` by `s` within a plateau of radius plateau*r, easing back to 1 at
 * radius r. Moves stay monotonic along each ray (no fold-over) for s up to about 1.5.
 */
function bulge(pts: Pt[], c: Pt, r: number, plateau: number, s: number): Pt[] {
  return pts.map(([x, y]) => {
    const u = Math.hypot(x - c[0], y - c[1]) / r;
    if (u >= 1) return [x, y];
    const t = u <= plateau ? 0 : (u - plateau) / (1 - plateau);
    const f = 1 + (s - 1) * (1 - t * t * (3 - 2 * t));
    return [c[0] + (x - c[0]) * f, c[1] + (y - c[1]) * f];
  });
}

export const BABY = {
  eyes: 1.42,
  nose: 0.72,
  mouth: 0.78,
  forehead: 1.12,
  lowerFace: 0.88,
  cheeks: 0.1,
} as const;

/** The baby version of an (upright, aligned) adult face shape of 468 mesh points. */
export function babyShape(mesh: readonly Pt[]): Pt[] {
  const w = dist(mesh[MARKS.face[0]]!, mesh[MARKS.face[1]]!);
  const eyeR = centroid(mesh, RIGHT_EYE);
  const eyeL = centroid(mesh, LEFT_EYE);
  let pts: Pt[] = mesh.map(([x, y]) => [x, y]);
  pts = bulge(pts, eyeR, 0.26 * w, 0.45, BABY.eyes);
  pts = bulge(pts, eyeL, 0.26 * w, 0.45, BABY.eyes);
  pts = bulge(pts, centroid(mesh, NOSE), 0.26 * w, 0.5, BABY.nose);
  pts = bulge(pts, centroid(mesh, MOUTH), 0.36 * w, 0.55, BABY.mouth);

  // Vertical proportions around the eye line: a band around the eyes keeps its height, the
  // forehead grows and the lower face shortens.
  const eyeY = (eyeR[1] + eyeL[1]) / 2;
  const band = 0.08 * w;
  const mouthY = centroid(mesh, MOUTH)[1];
  const chinY = mesh[152]![1];
  const cx = (mesh[MARKS.face[0]]![0] + mesh[MARKS.face[1]]![0]) / 2;
  return pts.map(([x, y]) => {
    const d = y - eyeY;
    const ny =
      d < -band
        ? eyeY - band + (d + band) * BABY.forehead
        : d > band
          ? eyeY + band + (d - band) * BABY.lowerFace
          : y;
    // Round cheeks: the lower face widens most around the mouth, less at the eyes and chin.
    const t = Math.max(0, Math.min(1, (y - eyeY) / (chinY - eyeY)));
    const peak = (mouthY - eyeY) / (chinY - eyeY);
    const bump =
      t < peak ? Math.sin(((t / peak) * Math.PI) / 2) : Math.cos(((t - peak) / (1 - peak)) * (Math.PI / 2));
    // Only the face's outer part moves, so the mouth and nose keep their new, smaller width.
    const side = Math.max(0, Math.min(1, (Math.abs(x - cx) / (0.5 * w) - 0.35) / 0.55));
    const outer = side * side * (3 - 2 * side);
    return [cx + (x - cx) * (1 + BABY.cheeks * Math.max(0, bump) * outer), ny];
  });
}
