import type { Face } from "../../vision/human";

/**
 * The caricature warp, driven by the 468-point face mesh: the head grows around its centre,
 * each eye grows around its own centre, and the mouth corners are pulled outward and up.
 * Every part is a smooth, monotonic radial or Gaussian deformation evaluated backwards (for
 * each output pixel, where to read in the source), so the result has no holes or folds and
 * fades back to the untouched photo away from the face.
 */
export const HEAD_SCALE = 1.35;
export const EYE_SCALE = 1.3;
/** Mouth-corner pull, as a share of the mouth's width: outward and upward. */
export const SMILE_OUT = 0.12;
export const SMILE_UP = 0.1;

// MediaPipe FaceMesh contours.
const LEFT_EYE = [33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246];
const RIGHT_EYE = [263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466];
const MOUTH_LEFT = 61;
const MOUTH_RIGHT = 291;
const LIP_CENTRE = [13, 14];

type Pt = [number, number];

interface Bulge {
  /** Centre in output space. */
  cx: number;
  cy: number;
  /** Ellipse radii (output space) of the fully scaled core; blends to identity by `fade` x. */
  rx: number;
  ry: number;
  fade: number;
  scale: number;
}

interface Pull {
  /** Where the moved point ends up (output space), the move, and the Gaussian's width. */
  cx: number;
  cy: number;
  dx: number;
  dy: number;
  sigma: number;
}

export interface WarpField {
  /** Moves an output pixel's position to its source position. */
  toSource(p: Point): void;
}

const smoothstep = (t: number) => (t <= 0 ? 0 : t >= 1 ? 1 : t * t * (3 - 2 * t));

/** Scratch point the backward maps move in place (no allocation per pixel). */
interface Point {
  x: number;
  y: number;
}

/** Backward map of a bulge: inside the core, 1/scale; beyond `fade` core radii, identity. */
function unbulge(b: Bulge, p: Point): void {
  const dx = p.x - b.cx;
  const dy = p.y - b.cy;
  const rho = Math.sqrt((dx / b.rx) ** 2 + (dy / b.ry) ** 2);
  if (rho >= b.fade) return;
  // s rises from 1/scale to 1, so rho*s(rho) is increasing: no fold.
  const s = 1 / b.scale + (1 - 1 / b.scale) * smoothstep((rho - 1) / (b.fade - 1));
  p.x = b.cx + dx * s;
  p.y = b.cy + dy * s;
}

function unpull(q: Pull, p: Point): void {
  const d2 = ((p.x - q.cx) ** 2 + (p.y - q.cy) ** 2) / (q.sigma * q.sigma);
  if (d2 > 9) return;
  const w = Math.exp(-d2);
  p.x -= q.dx * w;
  p.y -= q.dy * w;
}

const mean = (mesh: Face["mesh"], idx: number[]): Pt => [
  idx.reduce((s, i) => s + mesh[i]![0], 0) / idx.length,
  idx.reduce((s, i) => s + mesh[i]![1], 0) / idx.length,
];

export function caricatureField(face: Face): WarpField {
  const [fx, fy, fw, fh] = face.box;
  const m = face.mesh;
  // The head (hair included) is taller than the face box and centred a little above it.
  const head: Bulge = {
    cx: fx + fw / 2,
    cy: fy + fh * 0.42,
    rx: fw * 0.62 * HEAD_SCALE,
    ry: fh * 0.72 * HEAD_SCALE,
    fade: 1.55,
    scale: HEAD_SCALE,
  };
  const headForward = (p: Pt): Pt => [
    head.cx + (p[0] - head.cx) * HEAD_SCALE,
    head.cy + (p[1] - head.cy) * HEAD_SCALE,
  ];

  const eyes: Bulge[] = [LEFT_EYE, RIGHT_EYE].map((idx) => {
    const [cx, cy] = headForward(mean(m, idx));
    const width = Math.hypot(m[idx[0]!]![0] - m[idx[8]!]![0], m[idx[0]!]![1] - m[idx[8]!]![1]) * HEAD_SCALE;
    return { cx, cy, rx: width * 1.1 * EYE_SCALE, ry: width * 0.9 * EYE_SCALE, fade: 1.7, scale: EYE_SCALE };
  });

  const lipCentre = headForward(mean(m, LIP_CENTRE));
  const corners = [MOUTH_LEFT, MOUTH_RIGHT].map((i) => headForward([m[i]![0], m[i]![1]]));
  const mouthWidth = Math.hypot(corners[0]![0] - corners[1]![0], corners[0]![1] - corners[1]![1]);
  const pulls: Pull[] = corners.map(([x, y]) => {
    const ox = x - lipCentre[0];
    const oy = y - lipCentre[1];
    const ol = Math.hypot(ox, oy) || 1;
    const dx = (ox / ol) * SMILE_OUT * mouthWidth;
    const dy = (oy / ol) * SMILE_OUT * mouthWidth - SMILE_UP * mouthWidth;
    return { cx: x + dx, cy: y + dy, dx, dy, sigma: mouthWidth * 0.4 };
  });

  return {
    toSource(p) {
      for (const pull of pulls) unpull(pull, p);
      for (const eye of eyes) unbulge(eye, p);
      unbulge(head, p);
    },
  };
}

/** The field is evaluated every GRID pixels and interpolated between: it is smooth at that scale. */
const GRID = 4;

/** The field's source position for every output pixel (x, y pairs), clamped to the frame. */
export function sourceMap(field: WarpField, width: number, height: number): Float32Array {
  const gw = Math.ceil((width - 1) / GRID) + 1;
  const gh = Math.ceil((height - 1) / GRID) + 1;
  const grid = new Float32Array(gw * gh * 2);
  const p: Point = { x: 0, y: 0 };
  for (let gy = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++) {
      p.x = gx * GRID;
      p.y = gy * GRID;
      field.toSource(p);
      grid[(gy * gw + gx) * 2] = p.x;
      grid[(gy * gw + gx) * 2 + 1] = p.y;
    }
  }
  const map = new Float32Array(width * height * 2);
  for (let y = 0; y < height; y++) {
    const gy0 = Math.floor(y / GRID);
    const gy1 = Math.min(gh - 1, gy0 + 1);
    const ty = y / GRID - gy0;
    for (let x = 0; x < width; x++) {
      const gx0 = Math.floor(x / GRID);
      const gx1 = Math.min(gw - 1, gx0 + 1);
      const tx = x / GRID - gx0;
      const a = (gy0 * gw + gx0) * 2;
      const b = (gy0 * gw + gx1) * 2;
      const c = (gy1 * gw + gx0) * 2;
      const d = (gy1 * gw + gx1) * 2;
      const w00 = (1 - tx) * (1 - ty);
      const w01 = tx * (1 - ty);
      const w10 = (1 - tx) * ty;
      const w11 = tx * ty;
      const sx = grid[a]! * w00 + grid[b]! * w01 + grid[c]! * w10 + grid[d]! * w11;
      const sy = grid[a + 1]! * w00 + grid[b + 1]! * w01 + grid[c + 1]! * w10 + grid[d + 1]! * w11;
      // Reads outside the frame are clamped to its edge, so the output has no empty pixels.
      const i = (y * width + x) * 2;
      map[i] = sx < 0 ? 0 : sx > width - 1 ? width - 1 : sx;
      map[i + 1] = sy < 0 ? 0 : sy > height - 1 ? height - 1 : sy;
    }
  }
  return map;
}

/** Resamples an RGB image and its matte through a source map, bilinearly, in one pass. */
export function resample(
  rgb: Uint8Array,
  alpha: Uint8Array,
  width: number,
  height: number,
  map: Float32Array,
): { rgb: Buffer; alpha: Buffer } {
  const outRgb = Buffer.alloc(width * height * 3);
  const outAlpha = Buffer.alloc(width * height);
  for (let i = 0; i < width * height; i++) {
    const sx = map[i * 2]!;
    const sy = map[i * 2 + 1]!;
    const x0 = Math.floor(sx);
    const y0 = Math.floor(sy);
    const x1 = x0 + 1 < width ? x0 + 1 : x0;
    const y1 = y0 + 1 < height ? y0 + 1 : y0;
    const tx = sx - x0;
    const ty = sy - y0;
    const w00 = (1 - tx) * (1 - ty);
    const w01 = tx * (1 - ty);
    const w10 = (1 - tx) * ty;
    const w11 = tx * ty;
    const a = y0 * width + x0;
    const b = y0 * width + x1;
    const c = y1 * width + x0;
    const d = y1 * width + x1;
    for (let k = 0; k < 3; k++)
      outRgb[i * 3 + k] =
        rgb[a * 3 + k]! * w00 + rgb[b * 3 + k]! * w01 + rgb[c * 3 + k]! * w10 + rgb[d * 3 + k]! * w11 + 0.5;
    outAlpha[i] = alpha[a]! * w00 + alpha[b]! * w01 + alpha[c]! * w10 + alpha[d]! * w11 + 0.5;
  }
  return { rgb: outRgb, alpha: outAlpha };
}
