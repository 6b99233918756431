import { blurField } from "./blur";
import { edgePreservingSmooth } from "./smooth";

/**
 * Clay / plastic 3D shading, shared by 3d-caricature and 3d-finger: the photo's colours are
 * smoothed flat (edge-preserving), then lit as a surface. The surface's height is the
 * subject's silhouette inflated into a pillow (so cheeks and shoulders round off at the
 * matte's edge) plus a gentle relief from the smoothed brightness (bright features stand
 * out, dark creases recede); its normals get Blinn-Phong lighting: a key light from the top
 * left, soft diffuse falloff, and a smooth specular highlight.
 */
export interface ClayOptions {
  /** Edge-preserving smoothing reach, pixels (about a sixth of a face's width). */
  smoothSpace: number;
  /** Colour difference (0..1) kept as an edge by the smoothing. */
  smoothRange: number;
  /** Blur of the silhouette that becomes the pillow shape, pixels. */
  domeSigma: number;
  /** Height of the pillow, pixels (steeper sides: darker, rounder edges). */
  domeDepth: number;
  /** Blur and height of the brightness relief, pixels. */
  reliefSigma: number;
  reliefDepth: number;
  /** Specular strength (0..1) and Blinn-Phong exponent (higher: tighter, glossier). */
  specular: number;
  shininess: number;
  /** Luminance steps the colours are softly pulled towards (0: no flattening). */
  toonLevels: number;
}

/** Defaults shared by both effects; the size-dependent fields come from the caller (face size). */
export const CLAY: Omit<
  ClayOptions,
  "smoothSpace" | "domeSigma" | "domeDepth" | "reliefSigma" | "reliefDepth"
> = {
  smoothRange: 0.3,
  specular: 0.3,
  shininess: 30,
  toonLevels: 0,
};

// Key light from the top left, towards the viewer; the viewer looks straight in.
const LIGHT = normalize(-0.42, -0.6, 0.68);
const HALF = normalize(LIGHT[0], LIGHT[1], LIGHT[2] + 1);
const AMBIENT = 0.42;
const DIFFUSE = 0.75;
// A flat, camera-facing surface keeps its colour: diffuse terms are divided by this.
const FLAT = AMBIENT + DIFFUSE * LIGHT[2];

function normalize(x: number, y: number, z: number): [number, number, number] {
  const l = Math.hypot(x, y, z);
  return [x / l, y / l, z / l];
}

/** Lighting is computed on a grid this coarse (long side), then interpolated: it is smooth. */
const LIGHT_GRID = 640;

/**
 * Shades an RGB image as clay / plastic. `alpha` (0..255, optional) marks the subject: it
 * shapes the pillow and limits lighting to the subject; without it the whole frame is lit.
 */
export function clayShade(
  rgb: Buffer,
  alpha: Uint8Array | null,
  width: number,
  height: number,
  opts: ClayOptions,
): Buffer {
  const flat = edgePreservingSmooth(rgb, width, height, opts.smoothSpace, opts.smoothRange);
  const light = lightField(flat, alpha, width, height, opts);
  const { gw, gh, f } = light;
  const sx = (gw - 1) / Math.max(1, width - 1);
  const sy = (gh - 1) / Math.max(1, height - 1);

  const out = Buffer.alloc(width * height * 3);
  const step = opts.toonLevels > 0 ? 255 / opts.toonLevels : 0;
  for (let y = 0; y < height; y++) {
    const gy = y * sy;
    const y0 = Math.floor(gy);
    const y1 = Math.min(gh - 1, y0 + 1);
    const ty = gy - y0;
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const o = i * 3;
      let r = flat[o]!;
      let g = flat[o + 1]!;
      let b = flat[o + 2]!;
      const a = alpha ? alpha[i]! / 255 : 1;
      if (a > 0) {
        if (step > 0) {
          // Soft posterisation of brightness (hue kept): larger flat colour areas, as painted.
          const l = 0.299 * r + 0.587 * g + 0.114 * b + 1;
          const q = Math.floor(l / step);
          const t = l / step - q;
          const k = 1 + 0.5 * (((q + t * t * (3 - 2 * t)) * step) / l - 1);
          r *= k;
          g *= k;
          b *= k;
        }
        // Bilinear read of the coarse (diffuse, specular) grid.
        const gx = x * sx;
        const x0 = Math.floor(gx);
        const x1 = Math.min(gw - 1, x0 + 1);
        const tx = gx - x0;
        const i00 = (y0 * gw + x0) * 2;
        const i01 = (y0 * gw + x1) * 2;
        const i10 = (y1 * gw + x0) * 2;
        const i11 = (y1 * gw + x1) * 2;
        const w00 = (1 - tx) * (1 - ty);
        const w01 = tx * (1 - ty);
        const w10 = (1 - tx) * ty;
        const w11 = tx * ty;
        const lit = f[i00]! * w00 + f[i01]! * w01 + f[i10]! * w10 + f[i11]! * w11;
        const shine = f[i00 + 1]! * w00 + f[i01 + 1]! * w01 + f[i10 + 1]! * w10 + f[i11 + 1]! * w11;
        // Blend by alpha so the lit subject fades into the untouched (smoothed) surroundings.
        const diffuse = 1 + a * (lit - 1);
        const spec = a * shine;
        r = r * diffuse + spec;
        g = g * diffuse + spec;
        b = b * diffuse + spec;
      }
      out[o] = Math.max(0, Math.min(255, Math.round(r)));
      out[o + 1] = Math.max(0, Math.min(255, Math.round(g)));
      out[o + 2] = Math.max(0, Math.min(255, Math.round(b)));
    }
  }
  return out;
}

/**
 * Diffuse factor and specular term (0..255) per cell of a coarse grid: the height field
 * (pillow + relief) is built and lit there.
 */
function lightField(
  flat: Buffer,
  alpha: Uint8Array | null,
  width: number,
  height: number,
  opts: ClayOptions,
): { gw: number; gh: number; f: Float32Array } {
  const scale = Math.min(1, LIGHT_GRID / Math.max(width, height));
  const gw = Math.max(2, Math.round(width * scale));
  const gh = Math.max(2, Math.round(height * scale));
  const cell = width / gw;
  const n = gw * gh;
  // Point-sampled grid (the inputs are already smooth).
  const mask = new Float32Array(n);
  const luma = new Float32Array(n);
  for (let y = 0; y < gh; y++) {
    const sy = Math.min(height - 1, Math.round((y * (height - 1)) / (gh - 1)));
    for (let x = 0; x < gw; x++) {
      const sx = Math.min(width - 1, Math.round((x * (width - 1)) / (gw - 1)));
      const i = sy * width + sx;
      mask[y * gw + x] = alpha ? alpha[i]! / 255 : 1;
      luma[y * gw + x] = (0.299 * flat[i * 3]! + 0.587 * flat[i * 3 + 1]! + 0.114 * flat[i * 3 + 2]!) / 255;
    }
  }
  const dome = blurField(mask, gw, gh, opts.domeSigma / cell);
  const relief = blurField(luma, gw, gh, Math.max(0.5, opts.reliefSigma / cell));
  // Heights in grid cells, so the gradients below are slopes.
  const h = new Float32Array(n);
  for (let i = 0; i < n; i++)
    h[i] = (opts.domeDepth * Math.sqrt(dome[i]!) + opts.reliefDepth * relief[i]!) / cell;

  const f = new Float32Array(n * 2);
  for (let y = 0; y < gh; y++) {
    const up = Math.max(0, y - 1) * gw;
    const down = Math.min(gh - 1, y + 1) * gw;
    for (let x = 0; x < gw; x++) {
      const gx = (h[y * gw + Math.min(gw - 1, x + 1)]! - h[y * gw + Math.max(0, x - 1)]!) / 2;
      const gy = (h[down + x]! - h[up + x]!) / 2;
      // Normal (-gx, -gy, 1), normalised.
      const len = Math.sqrt(gx * gx + gy * gy + 1);
      const nx = -gx / len;
      const ny = -gy / len;
      const nz = 1 / len;
      const nl = Math.max(0, nx * LIGHT[0] + ny * LIGHT[1] + nz * LIGHT[2]);
      const nh = Math.max(0, nx * HALF[0] + ny * HALF[1] + nz * HALF[2]);
      f[(y * gw + x) * 2] = (AMBIENT + DIFFUSE * nl) / FLAT;
      f[(y * gw + x) * 2 + 1] = 255 * opts.specular * nh ** opts.shininess;
    }
  }
  return { gw, gh, f };
}
