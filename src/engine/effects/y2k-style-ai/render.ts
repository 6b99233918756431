import sharp from "sharp";
import type { RenderRequest } from "@/core/ports/renderer";
import { decodeRaw, encodePng, firstImage, type EffectOutput, type RawImage } from "../../shared/image-io";
import { uniform } from "../../shared/random";
import { lookFromPrompt, type Look } from "./look";
import { detectFaces, personMatte } from "../../vision/human";

/**
 * Y2K Style AI: a Y2K fashion-illustration look. The subject is split from its background
 * (border colour model + centre prior), shaded in flat posterised bands through a neon
 * gradient map with ink outlines, set on a generated chrome / gradient / holographic / grid
 * background with a neon rim light and sparkles, and finished with bloom. The prompt steers
 * hues, background and mood (see look.ts).
 */

/** Working long side of the subject/background split. */
const MASK_SIDE = 160;
/** Posterisation bands of the subject's shading. */
const BANDS = 4;

type RGB = [number, number, number];

const clamp01 = (v: number): number => (v < 0 ? 0 : v > 1 ? 1 : v);
const smoothstep = (a: number, b: number, v: number): number => {
  const t = clamp01((v - a) / (b - a));
  return t * t * (3 - 2 * t);
};
const fract = (v: number): number => v - Math.floor(v);

/** HSL (hue in degrees, s and l in 0..1) to 8-bit-scale RGB floats. */
export function hsl(h: number, s: number, l: number): RGB {
  const hh = (((h % 360) + 360) % 360) / 60;
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const x = c * (1 - Math.abs((hh % 2) - 1));
  const m = l - c / 2;
  const [r, g, b] =
    hh < 1
      ? [c, x, 0]
      : hh < 2
        ? [x, c, 0]
        : hh < 3
          ? [0, c, x]
          : hh < 4
            ? [0, x, c]
            : hh < 5
              ? [x, 0, c]
              : [c, 0, x];
  return [(r + m) * 255, (g + m) * 255, (b + m) * 255];
}

/** Linear interpolation through colour stops at positions `at` (ascending, 0..1). */
function ramp(stops: readonly RGB[], at: readonly number[], t: number, out: RGB): void {
  let k = 0;
  while (k < at.length - 2 && t > at[k + 1]!) k++;
  const a = stops[k]!;
  const b = stops[k + 1]!;
  const f = clamp01((t - at[k]!) / (at[k + 1]! - at[k]!));
  out[0] = a[0] + (b[0] - a[0]) * f;
  out[1] = a[1] + (b[1] - a[1]) * f;
  out[2] = a[2] + (b[2] - a[2]) * f;
}

interface Palette {
  bg: [RGB, RGB, RGB];
  shadow: RGB;
  mid: RGB;
  high: RGB;
  glow: RGB;
  ink: RGB;
  sparkle: RGB;
  line: RGB;
}

function palette(look: Look): Palette {
  const [h0, h1, h2] = look.hues;
  switch (look.tone) {
    case "pastel":
      return {
        bg: [hsl(h0, 0.85, 0.8), hsl(h1, 0.75, 0.76), hsl(h2, 0.85, 0.83)],
        shadow: hsl(h1, 0.55, 0.36),
        mid: hsl(h0, 0.9, 0.72),
        high: hsl(h2, 1, 0.93),
        glow: hsl(h0, 1, 0.8),
        ink: hsl(h1, 0.6, 0.28),
        sparkle: hsl(h2, 1, 0.95),
        line: hsl(h0, 1, 0.7),
      };
    case "night":
      return {
        bg: [hsl(h1, 0.85, 0.1), hsl(h0, 0.9, 0.3), hsl(h2, 0.9, 0.16)],
        shadow: hsl(h1, 0.9, 0.16),
        mid: hsl(h0, 1, 0.56),
        high: hsl(h2, 1, 0.82),
        glow: hsl(h0, 1, 0.58),
        ink: hsl(h1, 1, 0.08),
        sparkle: hsl(h2, 1, 0.9),
        line: hsl(h2, 1, 0.6),
      };
    default:
      return {
        bg: [hsl(h0, 0.95, 0.6), hsl(h1, 0.9, 0.52), hsl(h2, 0.95, 0.64)],
        shadow: hsl(h1, 0.85, 0.2),
        mid: hsl(h0, 1, 0.6),
        high: hsl(h2, 1, 0.8),
        glow: hsl(h2, 1, 0.62),
        ink: hsl(h1, 0.9, 0.13),
        sparkle: hsl(h2, 1, 0.93),
        line: hsl(h2, 1, 0.62),
      };
  }
}

function oklab(r: number, g: number, b: number, out: Float32Array, o: number): void {
  const lin = (c: number) => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const lr = lin(r);
  const lg = lin(g);
  const lb = lin(b);
  const l = Math.cbrt(0.4122214708 * lr + 0.5363325363 * lg + 0.0514459929 * lb);
  const m = Math.cbrt(0.2119034982 * lr + 0.6806995451 * lg + 0.1073969566 * lb);
  const s = Math.cbrt(0.0883024619 * lr + 0.2817188376 * lg + 0.6299787005 * lb);
  out[o] = 0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s;
  out[o + 1] = 1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s;
  out[o + 2] = 0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s;
}

/** k-means over the OKLab colours of the given pixels, evenly spaced deterministic starts. */
function kmeans(lab: Float32Array, pixels: readonly number[], k: number): Float32Array {
  const centres = new Float32Array(k * 3);
  if (pixels.length === 0) return centres;
  for (let c = 0; c < k; c++) {
    const s = pixels[Math.floor(((c + 0.5) * pixels.length) / k)]!;
    centres.set(lab.subarray(s * 3, s * 3 + 3), c * 3);
  }
  const sums = new Float64Array(k * 4);
  for (let iter = 0; iter < 8; iter++) {
    sums.fill(0);
    for (const s of pixels) {
      const best = nearestCentre(lab, s, centres).index;
      sums[best * 4] = sums[best * 4]! + lab[s * 3]!;
      sums[best * 4 + 1] = sums[best * 4 + 1]! + lab[s * 3 + 1]!;
      sums[best * 4 + 2] = sums[best * 4 + 2]! + lab[s * 3 + 2]!;
      sums[best * 4 + 3] = sums[best * 4 + 3]! + 1;
    }
    for (let c = 0; c < k; c++) {
      const cnt = sums[c * 4 + 3]!;
      if (cnt > 0) for (let j = 0; j < 3; j++) centres[c * 3 + j] = sums[c * 4 + j]! / cnt;
    }
  }
  return centres;
}

/** Nearest centre and its squared distance (chroma weighted double: hue separates best). */
function nearestCentre(lab: Float32Array, i: number, centres: Float32Array) {
  let index = 0;
  let d2 = Infinity;
  for (let c = 0; c < centres.length / 3; c++) {
    const dl = lab[i * 3]! - centres[c * 3]!;
    const da = lab[i * 3 + 1]! - centres[c * 3 + 1]!;
    const db = lab[i * 3 + 2]! - centres[c * 3 + 2]!;
    const d = dl * dl + 2 * (da * da + db * db);
    if (d < d2) {
      d2 = d;
      index = c;
    }
  }
  return { index, d2 };
}

/**
 * Where a portrait's subject usually is (0..1): a bust shape, narrow at the head, wide at
 * the shoulders, reaching the bottom edge, clear of the top edge and the sides.
 */
export function bustPrior(u: number, v: number): number {
  const sx = 0.19 + 0.2 * smoothstep(0.45, 0.9, v);
  const dx = (u - 0.5) / sx;
  const top = v < 0.14 ? Math.exp(-(((v - 0.14) / 0.09) ** 2) / 2) : 1;
  return Math.exp(-(dx * dx) / 2) * top;
}

/**
 * Subject/background split on a small image, a GrabCut-like colour model without graph cut:
 * a background colour model (k-means of the top and side borders) against a foreground
 * model (k-means of the likely subject), combined with a bust-shaped prior, smoothed,
 * re-estimated twice, thresholded; holes filled, small islands dropped. Falls back to the
 * prior's own shape when the split is implausible. Returns 0/1 per pixel.
 */
export function subjectMask(rgb: Uint8Array, w: number, h: number): Uint8Array {
  const n = w * h;
  const lab = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) oklab(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!, lab, i * 3);
  const prior = new Float32Array(n);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) prior[y * w + x] = bustPrior((x + 0.5) / w, (y + 0.5) / h);

  // Border samples: top rows and the upper 70 % of the side columns.
  const border: number[] = [];
  const band = Math.max(1, Math.round(Math.min(w, h) * 0.03));
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const side = (x < band || x >= w - band) && y < h * 0.7;
      if (y < band || side) border.push(y * w + x);
    }
  }
  let fgPixels: number[] = [];
  for (let i = 0; i < n; i++) if (prior[i]! > 0.7) fgPixels.push(i);
  let bgPixels = border;

  const prob = new Float32Array(n);
  const tmp = new Float32Array(n);
  for (let round = 0; round < 3; round++) {
    const bgModel = kmeans(lab, bgPixels, 6);
    const fgModel = kmeans(lab, fgPixels, 6);
    for (let i = 0; i < n; i++) {
      const dB = nearestCentre(lab, i, bgModel).d2;
      const dF = nearestCentre(lab, i, fgModel).d2;
      // Colour evidence: how much nearer the subject's colours than the background's.
      const p = (dB + 1e-4) / (dB + dF + 2e-4);
      // Prior and evidence combined in log-odds; the prior counts 1.6 times (it is the more
      // reliable of the two when subject and background share colours).
      const q = 0.06 + 0.88 * prior[i]!;
      const odds = (p / (1 - p)) * (q / (1 - q)) ** 1.6;
      prob[i] = odds / (1 + odds);
    }
    // Smoothing (two 5x5 box passes) stands in for the pairwise term of a graph cut.
    for (let pass = 0; pass < 2; pass++) {
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          let s = 0;
          let c = 0;
          for (let k = Math.max(0, x - 2); k <= Math.min(w - 1, x + 2); k++, c++) s += prob[y * w + k]!;
          tmp[y * w + x] = s / c;
        }
      }
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          let s = 0;
          let c = 0;
          for (let k = Math.max(0, y - 2); k <= Math.min(h - 1, y + 2); k++, c++) s += tmp[k * w + x]!;
          prob[y * w + x] = s / c;
        }
      }
    }
    // Re-estimate both models from the confident pixels.
    fgPixels = [];
    bgPixels = [...border];
    for (let i = 0; i < n; i++) {
      if (prob[i]! > 0.7) fgPixels.push(i);
      else if (prob[i]! < 0.25) bgPixels.push(i);
    }
    if (fgPixels.length < n * 0.03) break;
  }
  const mask = new Uint8Array(n);
  for (let i = 0; i < n; i++) mask[i] = prob[i]! > 0.5 ? 1 : 0;

  // Fill holes: background is what the border's background reaches.
  const reached = new Uint8Array(n);
  const stack: number[] = [];
  const seed = (i: number) => {
    if (!mask[i] && !reached[i]) {
      reached[i] = 1;
      stack.push(i);
    }
  };
  for (let x = 0; x < w; x++) {
    seed(x);
    seed((h - 1) * w + x);
  }
  for (let y = 0; y < h; y++) {
    seed(y * w);
    seed(y * w + w - 1);
  }
  while (stack.length) {
    const i = stack.pop()!;
    const x = i % w;
    if (x > 0) seed(i - 1);
    if (x < w - 1) seed(i + 1);
    if (i >= w) seed(i - w);
    if (i < n - w) seed(i + w);
  }
  for (let i = 0; i < n; i++) mask[i] = reached[i] ? 0 : 1;

  // Connected components of the subject; keep the largest and any at least 15 % of its size.
  const label = new Int32Array(n).fill(-1);
  const sizes: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!mask[i] || label[i]! >= 0) continue;
    const id = sizes.length;
    let size = 0;
    label[i] = id;
    stack.push(i);
    while (stack.length) {
      const j = stack.pop()!;
      size++;
      const x = j % w;
      const nb = [x > 0 ? j - 1 : -1, x < w - 1 ? j + 1 : -1, j >= w ? j - w : -1, j < n - w ? j + w : -1];
      for (const q of nb) {
        if (q >= 0 && mask[q] && label[q]! < 0) {
          label[q] = id;
          stack.push(q);
        }
      }
    }
    sizes.push(size);
  }
  const largest = Math.max(0, ...sizes);
  let area = 0;
  for (let i = 0; i < n; i++) {
    mask[i] = mask[i] && sizes[label[i]!]! >= largest * 0.15 ? 1 : 0;
    area += mask[i]!;
  }

  if (area < n * 0.06 || area > n * 0.88) {
    // No believable split (a landscape, a busy frame): the bust shape itself.
    for (let i = 0; i < n; i++) mask[i] = prior[i]! > 0.45 ? 1 : 0;
  }
  return mask;
}

/**
 * The subject mask at W x H, twice: channel 0 with a soft edge (the subject's alpha), channel 1
 * blurred wide (the halo for the rim light). Blurred small, scaled up together in one resize.
 */
async function softMasks(mask: Uint8Array, w: number, h: number, W: number, H: number): Promise<Buffer> {
  const bytes = Buffer.alloc(w * h);
  for (let i = 0; i < w * h; i++) bytes[i] = mask[i]! * 255;
  const blurred = (sigma: number) =>
    sharp(bytes, { raw: { width: w, height: h, channels: 1 } })
      .blur(sigma)
      .extractChannel(0)
      .raw()
      .toBuffer();
  const [edge, halo] = await Promise.all([blurred(0.9), blurred(5)]);
  const both = Buffer.alloc(w * h * 3);
  for (let i = 0; i < w * h; i++) {
    both[i * 3] = edge[i]!;
    both[i * 3 + 1] = halo[i]!;
  }
  return sharp(both, { raw: { width: w, height: h, channels: 3 } })
    .resize(W, H, { fit: "fill", kernel: "cubic" })
    .raw()
    .toBuffer();
}

/** The generated background at W x H (smooth patterns: the caller renders it at half size). */
function background(look: Look, pal: Palette, W: number, H: number, rand: () => number): Buffer {
  const bg = Buffer.alloc(W * H * 3);
  const long = Math.max(W, H);
  const [h0, h1, h2] = look.hues;
  const c: RGB = [0, 0, 0];
  const p1 = rand() * Math.PI * 2;
  const p2 = rand() * Math.PI * 2;
  const p3 = rand() * Math.PI * 2;
  const ca = Math.cos(look.angle);
  const sa = Math.sin(look.angle);
  // Projection range of the frame's corners on the gradient direction.
  const proj = [0, W, 0, W].map((x, k) => (x * ca + (k < 2 ? 0 : H) * sa) / long);
  const tMin = Math.min(...proj);
  const tSpan = Math.max(...proj) - tMin || 1;
  const tint = look.metalTint;
  const chrome: RGB[] = [
    hsl(h0, tint, 0.8),
    hsl(h1, tint, 0.56),
    hsl(h1, tint * 0.8, 0.15),
    hsl(h2, tint, 0.48),
    hsl(h2, tint, 0.84),
    hsl(h1, tint, 0.56),
  ];
  const chromeAt = [0, 0.46, 0.5, 0.56, 0.82, 1];
  const holoL = look.tone === "pastel" ? 0.8 : look.tone === "night" ? 0.42 : 0.7;
  const horizon = 0.62;

  for (let y = 0; y < H; y++) {
    const Y = y / long;
    const v = y / H;
    for (let x = 0; x < W; x++) {
      const X = x / long;
      const o = (y * W + x) * 3;
      switch (look.background) {
        case "gradient": {
          const t = (X * ca + Y * sa - tMin) / tSpan;
          ramp(pal.bg, [0, 0.5, 1], t + 0.04 * Math.sin(6.283 * (X * 1.3 - Y * 0.7) + p1), c);
          break;
        }
        case "chrome": {
          // Liquid chrome: a sky-horizon-ground reflection ramp on wavy horizontal bands.
          const t = fract(
            v * 1.15 +
              0.07 * Math.sin(6.283 * X * 1.6 + p1) +
              0.035 * Math.sin(6.283 * (X * 4.3 + Y * 1.1) + p2),
          );
          ramp(chrome, chromeAt, t, c);
          break;
        }
        case "holographic": {
          const hue =
            h0 +
            80 * Math.sin(6.283 * (0.7 * X + 0.5 * Y) + p1) +
            60 * Math.sin(6.283 * (1.9 * X - 1.3 * Y) + p2);
          const l = holoL + 0.1 * Math.sin(6.283 * (1.3 * X + 2.1 * Y) + p3);
          const rgb = hsl(hue, 0.8, l);
          c[0] = rgb[0];
          c[1] = rgb[1];
          c[2] = rgb[2];
          break;
        }
        case "grid": {
          if (v < horizon) {
            ramp(pal.bg, [0, 0.75, 1], v / horizon, c);
            const g = Math.exp(-(horizon - v) / 0.06) * 0.8;
            c[0] += (pal.glow[0] - c[0]) * g;
            c[1] += (pal.glow[1] - c[1]) * g;
            c[2] += (pal.glow[2] - c[2]) * g;
          } else {
            // A perspective floor grid: lines at equal depth steps and converging verticals.
            const d = v - horizon + 0.004;
            const pxV = 1 / H;
            const zh = 0.09 / d;
            const fz = fract(zh + p1);
            const lineH = 1 - smoothstep(0, 1.4 * ((0.09 / (d * d)) * pxV), Math.min(fz, 1 - fz));
            const zv = ((x - W / 2) / long / d) * 0.9;
            const fv = fract(zv);
            const lineV = 1 - smoothstep(0, (1.4 * 0.9) / long / d, Math.min(fv, 1 - fv));
            const line = Math.max(lineH, lineV) * smoothstep(0, 0.06, d);
            const base = pal.bg[0];
            c[0] = base[0] + (pal.line[0] - base[0]) * line;
            c[1] = base[1] + (pal.line[1] - base[1]) * line;
            c[2] = base[2] + (pal.line[2] - base[2]) * line;
          }
          break;
        }
      }
      bg[o] = Math.max(0, Math.min(255, c[0] + 0.5));
      bg[o + 1] = Math.max(0, Math.min(255, c[1] + 0.5));
      bg[o + 2] = Math.max(0, Math.min(255, c[2] + 0.5));
    }
  }
  return bg;
}

/** Four-point star sparkles, screened onto the image (weaker over the subject). */
function sparkles(
  img: Buffer,
  masks: Buffer,
  W: number,
  H: number,
  look: Look,
  pal: Palette,
  rand: () => number,
) {
  const long = Math.max(W, H);
  const count = Math.round(look.sparkle * (6 + 8 * Math.sqrt((W * H) / 1e6)));
  for (let s = 0; s < count; s++) {
    const cx = rand() * W;
    const cy = rand() * H;
    const r = long * (0.012 + 0.028 * rand() * rand());
    const arm = r * 0.05;
    const x0 = Math.max(0, Math.floor(cx - r));
    const x1 = Math.min(W - 1, Math.ceil(cx + r));
    const y0 = Math.max(0, Math.floor(cy - r));
    const y1 = Math.min(H - 1, Math.ceil(cy + r));
    for (let y = y0; y <= y1; y++) {
      const dy = y - cy;
      const ay = Math.abs(dy) / r;
      for (let x = x0; x <= x1; x++) {
        const dx = x - cx;
        const ax = Math.abs(dx) / r;
        if (ax >= 1 && ay >= 1) continue;
        const arms =
          (ax < 1 ? (1 - ax) ** 2 * Math.exp(-((dy / arm) ** 2)) : 0) +
          (ay < 1 ? (1 - ay) ** 2 * Math.exp(-((dx / arm) ** 2)) : 0);
        const core = Math.exp(-(dx * dx + dy * dy) / (2 * (0.1 * r) ** 2));
        const i = y * W + x;
        const k = Math.min(1, arms + core) * (1 - (0.85 * masks[i * 3]!) / 255);
        if (k <= 0.002) continue;
        for (let ch = 0; ch < 3; ch++) {
          const col = 255 - (255 - pal.sparkle[ch]!) * 0.5;
          const v = img[i * 3 + ch]!;
          img[i * 3 + ch] = 255.5 - ((255 - v) * (255 - col * k)) / 255;
        }
      }
    }
  }
}

/**
 * People: faces found on a copy of up to 1280 px, the person matte (selfie model) on a 512 px copy, brought to the mask's size, with
 * each found face and the body below it always in (the matte can miss someone at the side of
 * a group photo, and the colour split erased them into the background). Null without a face.
 */
async function peopleMask(src: RawImage, w: number, h: number): Promise<Uint8Array | null> {
  // Faces on a copy large enough for the small heads of a group photo.
  const fScale = Math.min(1, 1280 / Math.max(src.width, src.height));
  const faceCopy = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .resize(Math.round(src.width * fScale), Math.round(src.height * fScale), { fit: "fill" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { faces: found } = await detectFaces({
    data: faceCopy.data,
    width: faceCopy.info.width,
    height: faceCopy.info.height,
  });
  if (!found.length) return null;
  const rgb = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .resize(w, h, { fit: "fill" })
    .raw()
    .toBuffer();
  const scale = 512 / Math.max(w, h);
  const bw = Math.round(w * scale);
  const bh = Math.round(h * scale);
  const big = await sharp(rgb, { raw: { width: w, height: h, channels: 3 } })
    .resize(bw, bh, { fit: "fill" })
    .raw()
    .toBuffer();
  const pixels = { data: big, width: bw, height: bh };
  // Face boxes in the mask's pixels, through the matte copy's scale (box / scale below).
  const k = (w / faceCopy.info.width) * scale;
  const faces = found.map((f) => ({ box: f.box.map((v) => v * k) as [number, number, number, number] }));
  const { alpha } = await personMatte(pixels);
  const small = await sharp(alpha, { raw: { width: bw, height: bh, channels: 1 } })
    .resize(w, h, { fit: "fill" })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const mask = new Uint8Array(w * h);
  for (let i = 0; i < mask.length; i++) mask[i] = small[i]! >= 128 ? 1 : 0;
  for (const f of faces) {
    const [fx, fy, fw, fh] = f.box.map((v) => v / scale) as [number, number, number, number];
    const cx = fx + fw / 2;
    // The head (a little larger than the face box) and a body twice its width below it.
    for (let y = Math.max(0, Math.floor(fy - fh * 0.3)); y < h; y++)
      for (let x = 0; x < w; x++) {
        const head = ((x - cx) / (fw * 0.65)) ** 2 + ((y - (fy + fh * 0.45)) / (fh * 0.8)) ** 2 <= 1;
        const body = y > fy + fh && Math.abs(x - cx) < fw * (0.9 + Math.min(1, (y - fy - fh) / fh) * 0.4);
        if (head || body) mask[y * w + x] = 1;
      }
  }
  let area = 0;
  for (const v of mask) area += v;
  return area > mask.length * 0.04 ? mask : null;
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const look = lookFromPrompt(req.prompt ?? "");
  const pal = palette(look);
  const rand = uniform((req.seed ^ look.hash) >>> 0);

  const src = await decodeRaw(firstImage(req), { channels: 3, flatten: true });
  const { width: W, height: H } = src;
  const long = Math.max(W, H);
  const n = W * H;

  // Subject mask on a small copy.
  const small = await sharp(src.data, { raw: { width: W, height: H, channels: 3 } })
    .resize(MASK_SIDE, MASK_SIDE, { fit: "inside", kernel: "linear" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const sw = small.info.width;
  const sh = small.info.height;
  const mask = (await peopleMask(src, sw, sh)) ?? subjectMask(small.data, sw, sh);
  const masks = await softMasks(mask, sw, sh, W, H);

  // A smoothed copy for flat illustration shading (no pores, no JPEG noise in the bands).
  const smooth = await sharp(src.data, { raw: { width: W, height: H, channels: 3 } })
    .blur(Math.max(0.8, long / 700))
    .raw()
    .toBuffer();
  const lum = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    lum[i] = 0.299 * smooth[i * 3]! + 0.587 * smooth[i * 3 + 1]! + 0.114 * smooth[i * 3 + 2]!;
  }
  // Contrast stretch on the subject's own range (2nd..98th percentile): dull photos get full range.
  const hist = new Float64Array(256);
  let weight = 0;
  for (let i = 0; i < n; i++) {
    const a = masks[i * 3]! / 255 + 0.02;
    const lb = lum[i]! | 0;
    hist[lb] = hist[lb]! + a;
    weight += a;
  }
  const pct = (f: number) => {
    let acc = 0;
    for (let b = 0; b < 256; b++) {
      acc += hist[b]!;
      if (acc >= weight * f) return b;
    }
    return 255;
  };
  const lo = pct(0.02);
  const hi = Math.max(lo + 24, pct(0.98));

  // Ink outlines: Sobel magnitude of the smoothed luminance above its subject 90th percentile.
  const mag = new Float32Array(n);
  const magHist = new Float64Array(512);
  for (let y = 1; y < H - 1; y++) {
    for (let x = 1; x < W - 1; x++) {
      const i = y * W + x;
      const gx =
        lum[i - W + 1]! +
        2 * lum[i + 1]! +
        lum[i + W + 1]! -
        lum[i - W - 1]! -
        2 * lum[i - 1]! -
        lum[i + W - 1]!;
      const gy =
        lum[i + W - 1]! +
        2 * lum[i + W]! +
        lum[i + W + 1]! -
        lum[i - W - 1]! -
        2 * lum[i - W]! -
        lum[i - W + 1]!;
      const m = Math.sqrt(gx * gx + gy * gy) / (hi - lo);
      mag[i] = m;
      const mb = Math.min(511, (m * 128) | 0);
      magHist[mb] = magHist[mb]! + masks[i * 3]! / 255;
    }
  }
  let magTotal = 0;
  for (const v of magHist) magTotal += v;
  let edge = 511;
  for (let b = 0, acc = 0; b < 512; b++) {
    acc += magHist[b]!;
    if (acc >= magTotal * 0.9) {
      edge = b;
      break;
    }
  }
  const edgeLo = Math.max(0.25, edge / 128);

  // Background at half size, scaled up (its patterns are smooth), then the subject over it.
  const bw = Math.max(1, Math.round(W / 2));
  const bh = Math.max(1, Math.round(H / 2));
  const out = await sharp(background(look, pal, bw, bh, rand), {
    raw: { width: bw, height: bh, channels: 3 },
  })
    .resize(W, H, { fit: "fill", kernel: "linear" })
    .raw()
    .toBuffer();
  const tone: RGB = [0, 0, 0];
  const stops = [pal.shadow, pal.mid, pal.high];
  for (let i = 0; i < n; i++) {
    const a = masks[i * 3]! / 255;
    const o = i * 3;
    // Rim light: the halo outside the subject's silhouette, screened in the glow colour.
    const rim = Math.min(1, Math.max(0, masks[i * 3 + 1]! / 255 - a) * 2.4);
    if (a > 0.002) {
      const y = clamp01((lum[i]! - lo) / (hi - lo));
      // Flat bands with narrow soft steps (no aliasing on the band edges).
      const xb = y * (BANDS - 1);
      const kb = Math.min(BANDS - 2, Math.floor(xb));
      const q = (kb + smoothstep(0.4, 0.6, xb - kb)) / (BANDS - 1);
      ramp(stops, [0, 0.5, 1], q, tone);
      const L = (0.1 + 0.78 * q) * 255;
      const ink = smoothstep(edgeLo, edgeLo * 2, mag[i]!) * 0.85;
      for (let ch = 0; ch < 3; ch++) {
        // The photo's own colour, saturated, at the band's lightness; half the neon gradient map.
        const own = L + (smooth[o + ch]! - lum[i]!) * 1.9;
        let v = own * 0.5 + tone[ch]! * 0.5;
        v += (pal.ink[ch]! - v) * ink;
        // Uint8 stores truncate after this clamp; +0.5 rounds.
        out[o + ch] = Math.max(0, Math.min(255, out[o + ch]! * (1 - a) + v * a + 0.5));
      }
    }
    if (rim > 0) {
      for (let ch = 0; ch < 3; ch++) {
        out[o + ch] = 255.5 - ((255 - out[o + ch]!) * (255 - pal.glow[ch]! * rim)) / 255;
      }
    }
  }
  sparkles(out, masks, W, H, look, pal, rand);

  // Bloom: bright-pass at quarter size, blurred, scaled back up and screened on (libvips).
  const rawOpts = { raw: { width: W, height: H, channels: 3 as const } };
  const strength = 0.6 * look.glow;
  const bloom = await sharp(out, rawOpts)
    .resize(Math.max(1, Math.round(W / 4)), Math.max(1, Math.round(H / 4)), { fit: "fill", kernel: "linear" })
    .linear(strength / 0.4, -255 * 1.5 * strength)
    .blur(Math.max(0.6, long / 4 / 80))
    .resize(W, H, { fit: "fill", kernel: "linear" })
    .raw()
    .toBuffer();
  const glowing = await sharp(out, rawOpts)
    .composite([{ input: bloom, raw: rawOpts.raw, blend: "screen" }])
    .removeAlpha()
    .raw()
    .toBuffer();
  return encodePng({ data: glowing, width: W, height: H, channels: 3 });
}
