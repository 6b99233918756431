/* eslint-disable @typescript-eslint/no-explicit-any -- opencv.js ships loose types */
import { forEachPiece8, largestComponent } from "./components";
import type { RawImage } from "./image-io";
import sharp from "sharp";
import { fillHoles, type Mask } from "./mask";
import { cutOutSubject } from "./subject";
import { opencv } from "./opencv";
import { uniform } from "./random";

/**
 * What the line effects (coloring page, line drawing) share to keep lines to the forms of a
 * photo and off its texture: the gradients and combined Canny of a flattened photo, the
 * edge density and structure-tensor coherence maps, the scrap filter (pieces too short for
 * where they lie, tiny loops, wandering scribbles), the textured-photo rule (fur among leaves:
 * texture melted further, only the strongest edges, longer pieces, an animal's salient spots
 * outlined), the completion of a pet's or an object's cut-out, and its silhouette in a
 * textured scene ({@link petSilhouette}).
 */

/** Minimum lengths (px, 8-connected pixels) of a line piece by where most of it lies. */
export interface ScrapLengths {
  /** On a face's detail (eyes, brows, nostrils, lips: short but essential). */
  detail: number;
  /** On the subject. */
  subject: number;
  /** In the background. */
  background: number;
  /** Where edges are dense (fur, foliage, gravel), outside a face's detail. */
  texture: number;
}

export interface ScrapOptions {
  /** Subject at the lines' size (>= 128 inside), or null: everything is subject. */
  subject: Uint8Array | null;
  /** 0/1 at the lines' size: a face's detail. */
  detail: Uint8Array;
  /** Share of edge pixels around each pixel ({@link densityMap}), and the share above which a place is texture. */
  density: Float32Array;
  textureDensity: number;
  lengths: ScrapLengths;
  /**
   * Structure-tensor coherence per pixel ({@link coherenceMap}) and the mean a piece outside a
   * face's detail needs, where edges are dense and elsewhere: a wandering scribble (the outline
   * of a fur tuft, a clump of leaves) changes direction every few pixels, a contour does not.
   */
  coherence?: { values: Float32Array; dense: number; sparse: number };
}

/**
 * The pieces (8-connected) of `edges` (non-zero) worth drawing, as a 0/1 mask: long enough for
 * where they lie (a face's detail, the subject, the background, texture), not a tiny closed
 * loop (a speck, a dot of a pattern: the piece's extent must reach 60 % of its minimum), and,
 * with `coherence`, not a scribble. Shared by the coloring page and the line drawing.
 */
export function dropScraps(edges: Uint8Array, w: number, h: number, o: ScrapOptions): Uint8Array {
  const n = w * h;
  const keep = new Uint8Array(n);
  const seen = new Uint8Array(n);
  const stack: number[] = [];
  const piece: number[] = [];
  for (let s = 0; s < n; s++) {
    if (!edges[s] || seen[s]) continue;
    piece.length = 0;
    stack.push(s);
    seen[s] = 1;
    let inSubject = 0;
    let inDetail = 0;
    let dense = 0;
    let coherent = 0;
    let x0 = w;
    let x1 = 0;
    let y0 = h;
    let y1 = 0;
    while (stack.length) {
      const p = stack.pop()!;
      piece.push(p);
      const x = p % w;
      const y = (p - x) / w;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (!o.subject || o.subject[p]! >= 128) inSubject++;
      if (o.detail[p]) inDetail++;
      if (o.density[p]! > o.textureDensity) dense++;
      if (o.coherence) coherent += o.coherence.values[p]!;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const q = yy * w + xx;
          if (seen[q] || !edges[q]) continue;
          seen[q] = 1;
          stack.push(q);
        }
      }
    }
    const most = piece.length / 2;
    const { lengths } = o;
    let min = inDetail > most ? lengths.detail : inSubject > most ? lengths.subject : lengths.background;
    if (inDetail <= most && dense > most) min = Math.max(min, lengths.texture);
    if (
      o.coherence &&
      inDetail <= most &&
      coherent / piece.length < (dense > most ? o.coherence.dense : o.coherence.sparse)
    )
      continue;
    const extent = Math.hypot(x1 - x0, y1 - y0);
    if (piece.length >= min && extent >= min * 0.6) for (const p of piece) keep[p] = 1;
  }
  return keep;
}

/**
 * Drops (in place) the short line pieces that close a tiny island of paper (under `minArea`
 * px): a coloring page's region must be big enough to colour, and a speck ringed by a scrap
 * of texture is not. A piece goes when it borders such an island, is shorter than `maxPiece`
 * px, and lies mostly outside `exempt` (a face's features: an eye is small on purpose).
 */
export function dropIslands(
  lines: Uint8Array,
  w: number,
  h: number,
  o: { minArea: number; maxPiece: number; exempt: Uint8Array },
): void {
  const n = w * h;
  // The ink as drawn: strokes are wider than these 1 px lines, so a gap of a pixel closes.
  const ink = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    if (!lines[p]) continue;
    const x = p % w;
    ink[p] = 1;
    if (x > 0) ink[p - 1] = 1;
    if (x < w - 1) ink[p + 1] = 1;
    if (p >= w) ink[p - w] = 1;
    if (p < n - w) ink[p + w] = 1;
  }
  // Paper regions (4-connected) and their areas.
  const region = new Int32Array(n).fill(-1);
  const areas: number[] = [];
  const stack: number[] = [];
  for (let s = 0; s < n; s++) {
    if (ink[s] || region[s]! >= 0) continue;
    const id = areas.length;
    let area = 0;
    region[s] = id;
    stack.push(s);
    while (stack.length) {
      const p = stack.pop()!;
      area++;
      const x = p % w;
      for (let k = 0; k < 4; k++) {
        const q = neighbour4(p, x, k, w, n);
        if (q >= 0 && !ink[q] && region[q]! < 0) {
          region[q] = id;
          stack.push(q);
        }
      }
    }
    areas.push(area);
  }
  // Ink pieces (8-connected): short ones bordering a tiny island go.
  const seen = new Uint8Array(n);
  const piece: number[] = [];
  for (let s = 0; s < n; s++) {
    if (!lines[s] || seen[s]) continue;
    piece.length = 0;
    seen[s] = 1;
    stack.push(s);
    let tiny = false;
    let exempt = 0;
    while (stack.length) {
      const p = stack.pop()!;
      piece.push(p);
      if (o.exempt[p]) exempt++;
      const x = p % w;
      const y = (p - x) / w;
      // The paper next to the (widened) stroke: 2 px away.
      for (let dy = -2; dy <= 2; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -2; dx <= 2; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const q = yy * w + xx;
          if (region[q]! >= 0 && areas[region[q]!]! < o.minArea) tiny = true;
          if (Math.abs(dx) <= 1 && Math.abs(dy) <= 1 && lines[q] && !seen[q]) {
            seen[q] = 1;
            stack.push(q);
          }
        }
      }
    }
    if (tiny && piece.length < o.maxPiece && exempt <= piece.length / 2) for (const p of piece) lines[p] = 0;
  }
}

/** Share of set pixels of a mask over the (2r+1)^2 box around each pixel (an integral image). */
export function densityMap(mask: Uint8Array, w: number, h: number, r: number): Float32Array {
  const W1 = w + 1;
  const integral = new Int32Array(W1 * (h + 1));
  for (let y = 0; y < h; y++) {
    let row = 0;
    for (let x = 0; x < w; x++) {
      row += mask[y * w + x] ? 1 : 0;
      integral[(y + 1) * W1 + x + 1] = integral[y * W1 + x + 1]! + row;
    }
  }
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const ya = Math.max(0, y - r);
    const yb = Math.min(h, y + r + 1);
    for (let x = 0; x < w; x++) {
      const xa = Math.max(0, x - r);
      const xb = Math.min(w, x + r + 1);
      const sum =
        integral[yb * W1 + xb]! - integral[ya * W1 + xb]! - integral[yb * W1 + xa]! + integral[ya * W1 + xa]!;
      out[y * w + x] = sum / ((xb - xa) * (yb - ya));
    }
  }
  return out;
}

/**
 * Structure-tensor coherence (0..1) from Sobel gradients (OpenCV CV_32F Mats), the tensor
 * smoothed over `sigma` px: near 1 along a contour, where the gradient keeps one direction;
 * low in fur, foliage and gravel, where it turns every few pixels.
 */
export async function coherenceMap(gx: any, gy: any, sigma: number): Promise<Float32Array> {
  const { cv } = await opencv();
  const jxx = new cv.Mat();
  const jxy = new cv.Mat();
  const jyy = new cv.Mat();
  try {
    cv.multiply(gx, gx, jxx);
    cv.multiply(gx, gy, jxy);
    cv.multiply(gy, gy, jyy);
    for (const m of [jxx, jxy, jyy]) cv.GaussianBlur(m, m, new cv.Size(0, 0), sigma);
    const a = jxx.data32F as Float32Array;
    const b = jxy.data32F as Float32Array;
    const c = jyy.data32F as Float32Array;
    const coherence = new Float32Array(a.length);
    for (let i = 0; i < a.length; i++) {
      const tr = a[i]! + c[i]!;
      coherence[i] = tr > 1e-3 ? Math.hypot(a[i]! - c[i]!, 2 * b[i]!) / tr : 0;
    }
    return coherence;
  } finally {
    jxx.delete();
    jxy.delete();
    jyy.delete();
  }
}

/** A flattened photo's grey image, colour channels and gradients (OpenCV Mats: call `delete`). */
export interface Gradients {
  gray: any;
  channels: any[];
  gx: any;
  gy: any;
  /** Gradient magnitude of the grey image. */
  mag: Float32Array;
  delete(): void;
}

export async function gradients(flat: any): Promise<Gradients> {
  const { cv } = await opencv();
  const gray = new cv.Mat();
  cv.cvtColor(flat, gray, cv.COLOR_RGB2GRAY);
  const split = new cv.MatVector();
  cv.split(flat, split);
  const channels = [0, 1, 2].map((c) => split.get(c));
  split.delete();
  const gx = new cv.Mat();
  const gy = new cv.Mat();
  cv.Sobel(gray, gx, cv.CV_32F, 1, 0, 3);
  cv.Sobel(gray, gy, cv.CV_32F, 0, 1, 3);
  const ax = gx.data32F as Float32Array;
  const ay = gy.data32F as Float32Array;
  const mag = new Float32Array(ax.length);
  for (let i = 0; i < mag.length; i++) mag[i] = Math.hypot(ax[i]!, ay[i]!);
  return {
    gray,
    channels,
    gx,
    gy,
    mag,
    delete: () => {
      for (const m of [gray, ...channels, gx, gy]) m.delete();
    },
  };
}

/**
 * Canny (hysteresis at 0.45 of `high`) on the grey image and on each colour channel, combined:
 * a red shirt on green grass of equal brightness still has an outline. 0/1 per pixel.
 */
export async function cannyAll(g: Gradients, high: number): Promise<Uint8Array> {
  const { cv } = await opencv();
  const found = new Uint8Array(g.mag.length);
  const e = new cv.Mat();
  try {
    for (const input of [...g.channels, g.gray]) {
      cv.Canny(input, e, high * 0.45, high, 3, true);
      const d = e.data as Uint8Array;
      for (let i = 0; i < d.length; i++) if (d[i]) found[i] = 1;
    }
  } finally {
    e.delete();
  }
  return found;
}

/**
 * A photo without people is drawn as textured (fur among leaves, gravel, a crowd of blades)
 * when over `share` of it has dense edges: then its texture is melted further
 * ({@link flattenTexture}), only the strongest edges start a line (the `quantile` of the
 * gradients, instead of about the strongest 12 %), every minimum length is `lengthScale`
 * times longer, and the subject's salient spots ({@link salientSpots}) are outlined.
 */
export const TEXTURED = { share: 0.2, quantile: 0.96, lengthScale: 1.8 } as const;

/** Whether a photo whose edge density is `density` is textured ({@link TEXTURED}). */
export function isTextured(density: Float32Array, textureDensity: number): boolean {
  let dense = 0;
  for (const v of density) if (v > textureDensity) dense++;
  return dense / density.length > TEXTURED.share;
}

/**
 * Melts texture further (a photo without people: fur, leaves, grass): `passes` more bilateral
 * filters with a wide colour range over an already flattened RGB Mat, in place. Strong edges
 * (an eye patch, a leaf against shadow) stay; fur strands and grass blades fade under the
 * line threshold.
 */
export async function flattenTexture(flat: any, passes = 2): Promise<void> {
  const { cv } = await opencv();
  for (let k = 0; k < passes; k++) {
    const next = new cv.Mat();
    cv.bilateralFilter(flat, next, 9, 60, 9, cv.BORDER_DEFAULT);
    next.copyTo(flat);
    next.delete();
  }
}

/**
 * A pet's or an object's mask (0/255 at the photo's size) from the detector's box, or null:
 * GrabCut (shared/subject.ts; OpenCV's generator seeded first, so a photo always gives the
 * same result), then completed by {@link refineSubject}.
 */
export async function cutOutSubjectWhole(
  src: RawImage,
  box: [number, number, number, number],
): Promise<Uint8Array | null> {
  (await opencv()).cv.setRNGSeed(0x5eed);
  const cut = await cutOutSubject(src, box);
  return cut ? refineSubject(src, cut) : null;
}

/** Working size of {@link refineSubject}'s colour model and GrabCut. */
const REFINE_SIDE = 200;

/**
 * A pet's or an object's cut-out, completed. The detector's box of an animal that fills the
 * frame (a raccoon running out of the picture at the top and left) leaves GrabCut almost no
 * background to learn from, or teaches it the animal's own fur as background (the strip
 * between the box and the frame), and the cut keeps only the middle of the body. Here the
 * photo's colours are clustered (k-means in Lab); the colours whose pixels lie mostly inside
 * the first cut are the subject's, and their pieces touching the cut join it; then GrabCut
 * runs again from that guess (its eroded core sure subject, the rest probable), so the
 * outline settles on the subject's real edge. `cut`: non-zero inside, at any size.
 * Returns 0/255 at the photo's size: the largest piece, rounded, without holes.
 */
export async function refineSubject(src: RawImage, cut: Mask): Promise<Uint8Array> {
  const { cv } = await opencv();
  const { width, height } = src;
  const s = Math.min(1, REFINE_SIDE / Math.max(width, height));
  const w = Math.max(8, Math.round(width * s));
  const h = Math.max(8, Math.round(height * s));
  const n = w * h;
  const at = (x: number, y: number) =>
    Math.min(cut.height - 1, Math.floor(((y + 0.5) * cut.height) / h)) * cut.width +
    Math.min(cut.width - 1, Math.floor(((x + 0.5) * cut.width) / w));
  const inCut = new Uint8Array(n);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) inCut[y * w + x] = cut.data[at(x, y)] ? 1 : 0;

  const mats: any[] = [];
  const track = <T>(m: T): T => {
    mats.push(m);
    return m;
  };
  try {
    const full = track(cv.matFromArray(height, width, cv.CV_8UC3, src.data));
    const img = track(new cv.Mat());
    cv.resize(full, img, new cv.Size(w, h), 0, 0, cv.INTER_AREA);
    const soft = track(new cv.Mat());
    cv.medianBlur(img, soft, 3);
    const labMat = track(new cv.Mat());
    cv.cvtColor(soft, labMat, cv.COLOR_RGB2Lab);
    const cluster = kmeansLab(labMat.data as Uint8Array, n, 8);
    // The subject's colours: at least 60 % of their pixels inside the cut.
    const total = new Float64Array(8);
    const inside = new Float64Array(8);
    for (let p = 0; p < n; p++) {
      total[cluster[p]!]!++;
      inside[cluster[p]!]! += inCut[p]!;
    }
    const guess = track(new cv.Mat(h, w, cv.CV_8UC1));
    const g = guess.data as Uint8Array;
    for (let p = 0; p < n; p++) g[p] = inCut[p] || inside[cluster[p]!]! >= 0.6 * total[cluster[p]!]! ? 1 : 0;
    // Thin bridges of the subject's colours through the texture are cut, small gaps closed.
    const k5 = track(cv.getStructuringElement(cv.MORPH_ELLIPSE, new cv.Size(5, 5)));
    cv.morphologyEx(guess, guess, cv.MORPH_OPEN, k5);
    cv.morphologyEx(guess, guess, cv.MORPH_CLOSE, k5);
    // Only the pieces touching the cut.
    const grown = new Uint8Array(n);
    const stack: number[] = [];
    for (let p = 0; p < n; p++)
      if (inCut[p]) {
        grown[p] = 1;
        stack.push(p);
      }
    while (stack.length) {
      const p = stack.pop()!;
      const x = p % w;
      for (let k = 0; k < 4; k++) {
        const q = neighbour4(p, x, k, w, n);
        if (q >= 0 && g[q] && !grown[q]) {
          grown[q] = 1;
          stack.push(q);
        }
      }
    }
    // GrabCut from the guess: its core (eroded by about 3 % of the side) sure subject.
    const guessMat = track(cv.matFromArray(h, w, cv.CV_8UC1, grown));
    const core = track(new cv.Mat());
    const r = Math.max(2, Math.round(Math.max(w, h) * 0.03));
    const kr = track(cv.getStructuringElement(cv.MORPH_ELLIPSE, new cv.Size(2 * r + 1, 2 * r + 1)));
    cv.erode(guessMat, core, kr);
    const c = core.data as Uint8Array;
    const init = new Uint8Array(n);
    for (let p = 0; p < n; p++) init[p] = c[p] ? cv.GC_FGD : grown[p] ? cv.GC_PR_FGD : cv.GC_PR_BGD;
    const mask = track(cv.matFromArray(h, w, cv.CV_8UC1, init));
    const bgd = track(new cv.Mat());
    const fgd = track(new cv.Mat());
    // GrabCut seeds its colour models from OpenCV's shared generator: fixed, for repeatable renders.
    cv.setRNGSeed(0x5eed);
    cv.grabCut(img, mask, new cv.Rect(0, 0, w, h), bgd, fgd, 2, cv.GC_INIT_WITH_MASK);
    const m = mask.data as Uint8Array;
    const out = new Uint8Array(n);
    for (let p = 0; p < n; p++) out[p] = m[p] === cv.GC_FGD || m[p] === cv.GC_PR_FGD ? 1 : 0;
    // The largest piece without holes, at the working size; enlarged with a linear filter and
    // a blur (rounds the outline), then back to 0/255 at half level.
    const whole = fillHoles({ data: largestComponent(out, w, h), width: w, height: h });
    const up = await sharp(Buffer.from(whole.data.map((v) => (v ? 255 : 0))), {
      raw: { width: w, height: h, channels: 1 },
    })
      .resize(width, height, { fit: "fill", kernel: "linear" })
      .blur(Math.max(0.5, Math.max(width, height) * 0.006))
      .extractChannel(0)
      .raw()
      .toBuffer();
    const mask255 = new Uint8Array(width * height);
    for (let i = 0; i < mask255.length; i++) mask255[i] = up[i]! >= 128 ? 255 : 0;
    return mask255;
  } finally {
    for (const m of mats) m.delete();
  }
}

/** k-means (k-means++ start from a fixed seed, 8 rounds) of Lab pixels (3 bytes each): each pixel's cluster. */
export function kmeansLab(lab: Uint8Array, n: number, k: number, rounds = 8): Uint8Array {
  const rnd = uniform(0x5eed);
  const centres = new Float32Array(k * 3);
  // Lightness counts a little less than colour: a shadow across fur is the same fur.
  const dist = (p: number, c: number) =>
    0.6 * (lab[p * 3]! - centres[c * 3]!) ** 2 +
    (lab[p * 3 + 1]! - centres[c * 3 + 1]!) ** 2 +
    (lab[p * 3 + 2]! - centres[c * 3 + 2]!) ** 2;
  const first = Math.floor(rnd() * n);
  for (let j = 0; j < 3; j++) centres[j] = lab[first * 3 + j]!;
  const nearest = new Float32Array(n).fill(Infinity);
  for (let c = 1; c < k; c++) {
    let sum = 0;
    for (let p = 0; p < n; p++) {
      nearest[p] = Math.min(nearest[p]!, dist(p, c - 1));
      sum += nearest[p]!;
    }
    let pick = n - 1;
    for (let p = 0, r = rnd() * sum; p < n; p++) {
      r -= nearest[p]!;
      if (r <= 0) {
        pick = p;
        break;
      }
    }
    for (let j = 0; j < 3; j++) centres[c * 3 + j] = lab[pick * 3 + j]!;
  }
  const cluster = new Uint8Array(n);
  for (let round = 0; round < rounds; round++) {
    const acc = new Float64Array(k * 4);
    for (let p = 0; p < n; p++) {
      let best = 0;
      let bestD = Infinity;
      for (let c = 0; c < k; c++) {
        const d = dist(p, c);
        if (d < bestD) {
          bestD = d;
          best = c;
        }
      }
      cluster[p] = best;
      for (let j = 0; j < 3; j++) acc[best * 4 + j]! += lab[p * 3 + j]!;
      acc[best * 4 + 3]!++;
    }
    for (let c = 0; c < k; c++)
      if (acc[c * 4 + 3]) for (let j = 0; j < 3; j++) centres[c * 3 + j] = acc[c * 4 + j]! / acc[c * 4 + 3]!;
  }
  return cluster;
}

/** The value below which `q` of the entries lie (a 1-unit histogram up to 2048). */
export function quantile(values: Float32Array, q: number): number {
  const bins = new Uint32Array(2048);
  for (const v of values) bins[Math.min(2047, Math.floor(v))]!++;
  const target = values.length * q;
  let seen = 0;
  for (let b = 0; b < bins.length; b++) {
    seen += bins[b]!;
    if (seen >= target) return b;
  }
  return 2047;
}

/**
 * The subject's salient spots as 1 px closed outlines at w x h: the places of the flattened
 * photo (`flat`, an RGB Mat) much darker or lighter than their surround at the scale of an
 * eye patch (difference of Gaussian blurs of the lightness, sigma = 1/110 of the side and 2.5
 * times that, beyond +-`contrast` levels of Lab lightness), compact (4 pi area / perimeter^2
 * at least 0.25), off the frame, at least 80 % on the subject, between `minShare` and 3 % of
 * the picture: an animal's eye patches, brows and nose, which have no landmarks and whose
 * soft edges Canny breaks up.
 */
export async function salientSpots(
  flat: any,
  w: number,
  h: number,
  subject: Uint8Array,
  minShare = 0.0006,
  contrast = 20,
  signs: readonly number[] = [1, -1],
): Promise<Uint8Array> {
  const { cv } = await opencv();
  const sigma = Math.max(w, h) / 110;
  const mats: any[] = [];
  const track = <T>(m: T): T => {
    mats.push(m);
    return m;
  };
  const out = new Uint8Array(w * h);
  try {
    const lab = track(new cv.Mat());
    cv.cvtColor(flat, lab, cv.COLOR_RGB2Lab);
    const planes = track(new cv.MatVector());
    cv.split(lab, planes);
    const L = track(new cv.Mat());
    track(planes.get(0)).convertTo(L, cv.CV_32F);
    const a = track(new cv.Mat());
    const b = track(new cv.Mat());
    cv.GaussianBlur(L, a, new cv.Size(0, 0), sigma);
    cv.GaussianBlur(L, b, new cv.Size(0, 0), sigma * 2.5);
    const A = a.data32F as Float32Array;
    const B = b.data32F as Float32Array;
    for (const sign of signs) {
      const mask = new Uint8Array(w * h);
      for (let i = 0; i < w * h; i++) if (sign * (A[i]! - B[i]!) > contrast) mask[i] = 1;
      keepSpots(mask, w, h, subject, minShare * w * h, 0.03 * w * h);
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          const p = y * w + x;
          if (
            mask[p] &&
            ((x > 0 && !mask[p - 1]) ||
              (x < w - 1 && !mask[p + 1]) ||
              (y > 0 && !mask[p - w]) ||
              (y < h - 1 && !mask[p + w]))
          )
            out[p] = 1;
        }
    }
    return out;
  } finally {
    for (const m of mats) m.delete();
  }
}

/** Keeps (in place) the 4-connected pieces of `mask` that are compact, off the frame, mostly on the subject, with area in [min, max]. */
function keepSpots(
  mask: Uint8Array,
  w: number,
  h: number,
  subject: Uint8Array,
  min: number,
  max: number,
): void {
  const seen = new Uint8Array(w * h);
  const stack: number[] = [];
  const piece: number[] = [];
  for (let s0 = 0; s0 < w * h; s0++) {
    if (!mask[s0] || seen[s0]) continue;
    piece.length = 0;
    seen[s0] = 1;
    stack.push(s0);
    let border = 0;
    let frame = false;
    let inside = 0;
    while (stack.length) {
      const p = stack.pop()!;
      piece.push(p);
      if (subject[p]! >= 128) inside++;
      const x = p % w;
      const y = (p - x) / w;
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) frame = true;
      for (let k = 0; k < 4; k++) {
        const q = neighbour4(p, x, k, w, w * h);
        if (q < 0) continue;
        if (!mask[q]) border++;
        else if (!seen[q]) {
          seen[q] = 1;
          stack.push(q);
        }
      }
    }
    const area = piece.length;
    // 4pi A / P^2, the 4-connected border shortened by pi/4 (it overstates a round outline).
    const compact = (4 * Math.PI * area) / Math.max(1, (border * Math.PI) / 4) ** 2;
    if (frame || area < min || area > max || compact < 0.25 || inside < area * 0.8)
      for (const p of piece) mask[p] = 0;
  }
}

/** The k-th (0..3: left, right, up, down) 4-neighbour of pixel p (column x) in a w-wide, n-pixel image, or -1 off the edge. */
function neighbour4(p: number, x: number, k: number, w: number, n: number): number {
  if (k === 0) return x > 0 ? p - 1 : -1;
  if (k === 1) return x < w - 1 ? p + 1 : -1;
  if (k === 2) return p >= w ? p - w : -1;
  return p < n - w ? p + w : -1;
}

/**
 * The subject's silhouette as a 1 px closed outline at w x h (0/1): the cut (>= 128 inside)
 * smoothed by a Gaussian of `smooth` px and re-thresholded (fur tufts and the cut's steps
 * round off), its inner boundary, off the picture's frame (the frame is not the animal's edge).
 * Also returns the smoothed inside (0/1), for what is inside or outside the silhouette.
 */
async function silhouette(
  subject: Uint8Array,
  w: number,
  h: number,
  smooth: number,
): Promise<{ rim: Uint8Array; inside: Uint8Array }> {
  const soft = await sharp(Buffer.from(subject), { raw: { width: w, height: h, channels: 1 } })
    .blur(Math.max(0.5, smooth))
    .extractChannel(0)
    .raw()
    .toBuffer();
  const inside = new Uint8Array(w * h);
  for (let i = 0; i < inside.length; i++) inside[i] = soft[i]! >= 128 ? 1 : 0;
  const rim = new Uint8Array(w * h);
  for (let y = 1; y < h - 1; y++)
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      if (inside[i] && (!inside[i - 1] || !inside[i + 1] || !inside[i - w] || !inside[i + w])) rim[i] = 1;
    }
  return { rim, inside };
}

/**
 * The line budget around a silhouette (a pet or an object cut from a textured scene), in place
 * on `lines` (non-zero = line): lines within `gap` px of the rim go (the bold silhouette is
 * drawn there instead, not beside a doubled, broken copy of it); inside the silhouette only
 * pieces (8-connected) at least `minInside` px long stay (a leaf across the body, not fur
 * strands), outside it only pieces at least `minOutside` px long (a few long leaf or horizon
 * lines, no leaf clutter competing with the animal's shape).
 */
function budgetAroundSilhouette(
  lines: Uint8Array,
  w: number,
  h: number,
  o: { rim: Uint8Array; inside: Uint8Array; gap: number; minInside: number; minOutside: number },
): void {
  const near = densityMap(o.rim, w, h, o.gap);
  for (let i = 0; i < lines.length; i++) if (lines[i] && near[i]! > 0) lines[i] = 0;
  forEachPiece8(lines, w, h, (piece) => {
    let outside = 0;
    for (const p of piece) if (!o.inside[p]) outside++;
    if (piece.length < (outside > piece.length / 2 ? o.minOutside : o.minInside))
      for (const p of piece) lines[p] = 0;
  });
}

/**
 * An animal's two eyes, as 1 px closed ovals at w x h (0/1), or none. Animals have no face
 * landmarks here; their eyes are the pair of small round blobs that differ most from their
 * surround (in lightness or colour: a raccoon's brown, glossy eye inside its black mask; a
 * cat's green eye in tabby fur) at an eye's scale. `rgb`: the photo at w x h (3 bytes per
 * pixel, not flattened: flattening melts an eye into its patch). Blobs are sought at three
 * scales in the upper 65 % of the silhouette (`inside`, 0/1), away from its rim; a pair must
 * have like scales, lie side by side (tilt under 30 degrees), 3 to 14 radii apart, both inside.
 * The pair with the highest weaker contrast wins if that contrast is over `minContrast`.
 */
async function animalEyes(
  rgb: Uint8Array,
  w: number,
  h: number,
  inside: Uint8Array,
  minContrast = 18,
): Promise<Uint8Array> {
  const { cv } = await opencv();
  const out = new Uint8Array(w * h);
  let y0 = h;
  let y1 = -1;
  for (let p = 0; p < w * h; p++)
    if (inside[p]) {
      const y = Math.floor(p / w);
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  if (y1 < 0) return out;
  const yMax = y0 + 0.65 * (y1 - y0);
  const side = Math.max(w, h);
  const edgeFar = densityMap(
    inside.map((v) => 1 - v),
    w,
    h,
    Math.max(2, Math.round(side / 60)),
  );
  const mats: any[] = [];
  const track = <T>(m: T): T => {
    mats.push(m);
    return m;
  };
  interface Blob {
    x: number;
    y: number;
    r: number;
    c: number;
  }
  const blobs: Blob[] = [];
  try {
    const img = track(cv.matFromArray(h, w, cv.CV_8UC3, rgb));
    const lab8 = track(new cv.Mat());
    cv.cvtColor(img, lab8, cv.COLOR_RGB2Lab);
    const lab = track(new cv.Mat());
    lab8.convertTo(lab, cv.CV_32FC3);
    for (const r of [side / 60, side / 40, side / 26]) {
      const s = r / Math.SQRT2;
      const a = track(new cv.Mat());
      const b = track(new cv.Mat());
      cv.GaussianBlur(lab, a, new cv.Size(0, 0), s * 0.7);
      cv.GaussianBlur(lab, b, new cv.Size(0, 0), s * 2.2);
      const A = a.data32F as Float32Array;
      const B = b.data32F as Float32Array;
      const score = new Float32Array(w * h);
      for (let p = 0; p < w * h; p++) {
        const dl = A[p * 3]! - B[p * 3]!;
        const da = A[p * 3 + 1]! - B[p * 3 + 1]!;
        const db = A[p * 3 + 2]! - B[p * 3 + 2]!;
        score[p] = Math.max(0, -dl) + 2 * Math.hypot(da, db);
      }
      // Local maxima over a window of the blob's diameter.
      const rad = Math.max(2, Math.round(r));
      for (let y = rad; y < Math.min(h - rad, yMax); y++)
        for (let x = rad; x < w - rad; x++) {
          const p = y * w + x;
          const v = score[p]!;
          if (v < minContrast || !inside[p] || edgeFar[p]! > 0) continue;
          let top = true;
          for (let dy = -rad; dy <= rad && top; dy += 2)
            for (let dx = -rad; dx <= rad; dx += 2)
              if (score[p + dy * w + dx]! > v) {
                top = false;
                break;
              }
          if (top) blobs.push({ x, y, r, c: v });
        }
    }
  } finally {
    for (const m of mats) m.delete();
  }
  let best: [Blob, Blob] | null = null;
  let bestC = minContrast;
  for (let i = 0; i < blobs.length; i++)
    for (let j = i + 1; j < blobs.length; j++) {
      const p = blobs[i]!;
      const q = blobs[j]!;
      if (p.r !== q.r) continue;
      const dx = Math.abs(p.x - q.x);
      const dy = Math.abs(p.y - q.y);
      const d = Math.hypot(dx, dy);
      if (dy > dx * 0.58 || d < 3 * p.r || d > 14 * p.r) continue;
      const c = Math.min(p.c, q.c);
      if (c > bestC) {
        bestC = c;
        best = [p, q];
      }
    }
  if (!best) return out;
  for (const e of best) {
    // The blob's centre weight (the narrower Gaussian) spans about 0.6 of the scale's radius.
    const rx = e.r * 0.62;
    const ry = e.r * 0.55;
    const steps = Math.ceil(2 * Math.PI * rx * 2);
    for (let t = 0; t < steps; t++) {
      const a = (2 * Math.PI * t) / steps;
      const x = Math.round(e.x + rx * Math.cos(a));
      const y = Math.round(e.y + ry * Math.sin(a));
      if (x >= 0 && y >= 0 && x < w && y < h) out[y * w + x] = 1;
    }
  }
  return out;
}

/** Share of a pet's or an object's cut rim that must follow the photo's edges to be drawn as its silhouette. */
const SILHOUETTE_AGREEMENT = 0.5;

/**
 * A pet's or an object's silhouette in a textured scene (fur among leaves), as the line
 * effects draw it: the completed cut (`subject`, >= 128 inside, at w x h), smoothed
 * ({@link silhouette}), taken only where its rim follows the photo's own edges (`edges`,
 * non-zero) for at least {@link SILHOUETTE_AGREEMENT} of its length: a cut through the middle
 * of the subject runs over smooth fur there and is no contour to draw. When it is taken, the
 * line budget around it is applied in place on `lines` ({@link budgetAroundSilhouette}: inside
 * only long lines, a leaf across the body, not fur strands; outside only long leaf or horizon
 * lines; none doubling it) and the animal's eyes are added to `lines` as closed ovals (1,
 * {@link animalEyes}, found in `rgb`, the unflattened photo at w x h). `side` sets the scale
 * of the smoothing and the reaches (the effect's working size). Returns the silhouette (its
 * 1 px rim and inside, 0/1) for the caller to draw bold, or null (lines untouched).
 */
export async function petSilhouette(
  lines: Uint8Array,
  w: number,
  h: number,
  o: {
    subject: Uint8Array;
    edges: Uint8Array;
    rgb: Uint8Array;
    side: number;
    /** Whether to look for an animal's eyes (not on a flower): default true. */
    eyes?: boolean;
    /** Shortest piece kept outside the silhouette (px): default a quarter of `side`. */
    minOutside?: number;
    /** Shortest piece kept inside the silhouette (px): default a tenth of `side`. */
    minInside?: number;
  },
): Promise<{ rim: Uint8Array; inside: Uint8Array } | null> {
  const sil = await silhouette(o.subject, w, h, o.side / 200);
  if (rimAgreement(sil.rim, o.edges, w, h, Math.max(2, Math.round(o.side / 200))) < SILHOUETTE_AGREEMENT)
    return null;
  budgetAroundSilhouette(lines, w, h, {
    ...sil,
    gap: Math.max(2, Math.round(o.side / 160)),
    minInside: o.minInside ?? Math.round(o.side / 10),
    minOutside: o.minOutside ?? Math.round(o.side / 4),
  });
  if (o.eyes === false) return sil;
  const eyes = await animalEyes(o.rgb, w, h, sil.inside);
  for (let i = 0; i < w * h; i++) if (eyes[i]) lines[i] = 1;
  return sil;
}

/**
 * Share of a silhouette's rim pixels with an edge of the photo (`edges`, non-zero) within `r`
 * px: how far the cut follows the photo's own contours. A cut that ends in the middle of the
 * subject (a cat's face cut through) runs over smooth fur there, and its rim is not a contour
 * to draw.
 */
function rimAgreement(rim: Uint8Array, edges: Uint8Array, w: number, h: number, r: number): number {
  const near = densityMap(edges, w, h, r);
  let total = 0;
  let hit = 0;
  for (let i = 0; i < rim.length; i++)
    if (rim[i]) {
      total++;
      if (near[i]! > 0) hit++;
    }
  return total ? hit / total : 0;
}
