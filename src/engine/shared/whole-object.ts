/* eslint-disable @typescript-eslint/no-explicit-any -- opencv.js ships loose types */
import sharp from "sharp";
import type { RawImage } from "./image-io";
import { fillHoles, keepComponents, smooth, type Mask } from "./mask";
import { opencv } from "./opencv";

/**
 * The whole pet or object of a photo without a face, for the effects that make it a
 * die-cut piece (stickers, the 3D figure). The detector's box often holds only part of it (a
 * cup without its saucer and spoon), and a GrabCut from that box alone learns the subject's
 * own colours outside the box as background (the red saucer teaches it that the red cup is
 * background). Here the background is learned from the photo's frame instead: the strip
 * along the frame outside the detector's box (the box taken to an edge it nearly reaches) is
 * clustered in Lab. GrabCut then starts from that strip as sure background, the eroded core of
 * a first cut from the box as sure subject, and as probable subject the first cut, the pieces
 * far from every background colour joined to it, and, up to half the box's size around it,
 * whatever is not plainly of the background's colours. The pieces holding the core are kept,
 * their gaps closed, holes filled and the outline smoothed into a clean die-cut contour. When
 * the cut keeps under 40 % of the box (the strip held the object's own colours: a saucer
 * reaching the frame), it runs again with the strip kept 12 % of the box's size further away.
 *
 * A close-up (a cat's head filling the frame) has no whole silhouette: the subject runs off
 * the photo's edges. It is reported as such (`closeUp`), so the effect can make an honest
 * badge of the framed subject ({@link badgeMask}) instead of a torn fragment. A box reaching
 * every edge leaves no background to learn: the whole frame is then the close-up's subject.
 */

/** Working size (long side) of the colour model and GrabCut. */
const WORK = 320;
/** Background clusters learned from the frame strip. */
const CLUSTERS = 6;
/** Around the box, a colour this close (share of the salience threshold) to the background's starts as background. */
const PLAIN = 0.5;

export interface WholeObject {
  /** The subject at the photo's size (0/1): one connected piece, no holes, smooth outline. */
  mask: Mask;
  /**
   * The subject runs off the frame: it covers at least a fifth of three or four of the
   * photo's edges, or of two with at least half of its outline on the frame (a close-up into
   * a corner). A subject cut by two edges with its own outline elsewhere (an animal whose
   * back runs out of the picture, its head whole) is not one.
   */
  closeUp: boolean;
  /** Share of the subject's outline that lies on the frame (0..1). */
  frameShare: number;
  /** How many of the four edges the subject covers for at least a fifth of their length. */
  edges: number;
}

/** Outline share on the frame above which a subject cut by two edges is a close-up. */
export const CLOSE_UP_FRAME_SHARE = 0.5;

/**
 * The whole subject around a detection box (x, y, width, height at the photo's size), or null
 * when the cut leaves almost nothing. Deterministic (OpenCV's generator is seeded).
 */
export async function cutOutWholeObject(
  src: RawImage,
  box: readonly [number, number, number, number],
): Promise<WholeObject | null> {
  const { width, height } = src;
  const s = Math.min(1, WORK / Math.max(width, height));
  const w = Math.max(16, Math.round(width * s));
  const h = Math.max(16, Math.round(height * s));
  const small = await sharp(src.data, { raw: { width, height, channels: 3 } })
    .resize(w, h, { fit: "fill" })
    .raw()
    .toBuffer();
  const kx = w / width;
  const ky = h / height;
  const b: Box = [
    Math.max(0, Math.floor(box[0] * kx)),
    Math.max(0, Math.floor(box[1] * ky)),
    Math.min(w, Math.ceil((box[0] + box[2]) * kx)),
    Math.min(h, Math.ceil((box[1] + box[3]) * ky)),
  ];
  if (b[2] - b[0] < 4 || b[3] - b[1] < 4) return null;

  const { cv } = await opencv();
  const mats: { delete(): void }[] = [];
  const track = <T extends { delete(): void }>(m: T): T => {
    mats.push(m);
    return m;
  };
  let cut: WorkCut | null;
  try {
    const img = track(cv.matFromArray(h, w, cv.CV_8UC3, small));
    const soft = track(new cv.Mat());
    cv.medianBlur(img, soft, 3);
    const labMat = track(new cv.Mat());
    cv.cvtColor(soft, labMat, cv.COLOR_RGB2Lab);
    const work: Work = { cv, track, img, lab: labMat.data as Uint8Array, w, h, box: b };
    cut = cutAt(work, 0);
    // The cut keeps little of the box: the frame strip next to it was probably the object's own
    // (a saucer reaching the frame, a loose detection box); again with the strip kept further away.
    const boxArea = (b[2] - b[0]) * (b[3] - b[1]);
    if (cut && cut.inBox < LOW_COVER * boxArea) {
      const wider = cutAt(work, WIDER);
      if (wider && wider.inBox > cut.inBox) cut = wider;
    }
  } finally {
    for (const m of mats) m.delete();
  }
  // No background along the frame at all: the subject fills the photo, the frame is its badge.
  if (!cut)
    return {
      mask: { data: new Uint8Array(width * height).fill(1), width, height },
      closeUp: true,
      frameShare: 1,
      edges: 4,
    };

  const stats = frameContact(cut.mask, w, h);
  // Back to the photo's size, rounded into a clean die-cut contour.
  const up = await sharp(Buffer.from(cut.mask.map((v) => v * 255)), {
    raw: { width: w, height: h, channels: 1 },
  })
    .resize(width, height, { fit: "fill", kernel: "cubic" })
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
  const binary: Mask = { data: new Uint8Array(width * height), width, height };
  for (let i = 0; i < width * height; i++) binary.data[i] = up[i]! >= 128 ? 1 : 0;
  const mask = fillHoles(await smooth(binary, Math.max(width, height) * 0.006));
  const kept = keepComponents(
    mask,
    cut.seeds.map(([x, y]) => [x / kx, y / ky] as [number, number]),
  );
  let area = 0;
  for (const v of kept.data) area += v;
  if (area < width * height * 0.015) return null;
  return {
    mask: kept,
    closeUp: stats.edges >= 3 || (stats.edges >= 2 && stats.frameShare >= CLOSE_UP_FRAME_SHARE),
    frameShare: stats.frameShare,
    edges: stats.edges,
  };
}

type Box = [number, number, number, number];
/** The working copy: OpenCV, its RGB Mat and Lab bytes, and the detection box (x0, y0, x1, y1). */
interface Work {
  cv: any;
  track: <T extends { delete(): void }>(m: T) => T;
  img: any;
  lab: Uint8Array;
  w: number;
  h: number;
  box: Box;
}
/** A cut at the working size: the mask (0/1), its seeds, and how many of its pixels lie in the box. */
interface WorkCut {
  mask: Uint8Array;
  seeds: [number, number][];
  inBox: number;
}
/** Below this share of the box kept, the cut is tried again with the background strip further from the box. */
const LOW_COVER = 0.4;
/** That retry keeps the strip this share of the box's size away from it. */
const WIDER = 0.12;

/**
 * One cut, with the background learned from the frame strip outside the box grown by
 * `margin` (share of its size); null when no strip is left (the subject fills the frame).
 */
function cutAt(work: Work, margin: number): WorkCut | null {
  const { cv, track, img, lab, w, h } = work;
  const n = w * h;
  const [bx0, by0, bx1, by1] = work.box;
  const mx = (bx1 - bx0) * margin;
  const my = (by1 - by0) * margin;
  // A box reaching within a few percent of an edge means the subject reaches that edge: the
  // frame strip there is the subject, not background.
  const near = Math.max(3, Math.round(Math.max(w, h) * 0.04));
  const ex0 = bx0 - mx <= near ? 0 : bx0 - mx;
  const ey0 = by0 - my <= near ? 0 : by0 - my;
  const ex1 = bx1 + mx >= w - near ? w : bx1 + mx;
  const ey1 = by1 + my >= h - near ? h : by1 + my;
  const nearBox = (x: number, y: number) => x >= ex0 && x < ex1 && y >= ey0 && y < ey1;
  // Around the box, by half its size: where the rest of the object may lie (a saucer, a tail).
  const gx = (bx1 - bx0) * 0.5;
  const gy = (by1 - by0) * 0.5;
  const aroundBox = (x: number, y: number) => x >= bx0 - gx && x < bx1 + gx && y >= by0 - gy && y < by1 + gy;

  // The background's colours: the frame strip outside the (grown) detection box.
  const ring = Math.max(3, Math.round(Math.min(w, h) * 0.04));
  const strip = new Uint8Array(n);
  const samples: number[] = [];
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      if ((x < ring || y < ring || x >= w - ring || y >= h - ring) && !nearBox(x, y)) {
        strip[y * w + x] = 1;
        samples.push(y * w + x);
      }
  if (samples.length < ring * 8) return null;

  // How far each pixel's colour is from the nearest background colour, against the
  // background's own spread (most of the strip lies within it).
  const centres = kmeans(lab, samples, CLUSTERS);
  const far = new Float32Array(n);
  for (let p = 0; p < n; p++) far[p] = nearest(lab, p, centres);
  const own = samples.map((p) => far[p]!).sort((a, b) => a - b);
  const salientAt = Math.max(14, 2 * own[Math.floor(own.length * 0.9)]!);

  // The first guess: GrabCut from the box alone (its core is surely the subject).
  const first = new Uint8Array(n);
  {
    const mask = track(new cv.Mat());
    const bgd = track(new cv.Mat());
    const fgd = track(new cv.Mat());
    const inset = Math.max(2, Math.round(Math.min(w, h) * 0.02));
    const x0 = Math.max(inset, bx0);
    const y0 = Math.max(inset, by0);
    const x1 = Math.min(w - inset, bx1);
    const y1 = Math.min(h - inset, by1);
    cv.setRNGSeed(0x5eed);
    if (x1 - x0 >= 8 && y1 - y0 >= 8) {
      cv.grabCut(img, mask, new cv.Rect(x0, y0, x1 - x0, y1 - y0), bgd, fgd, 3, cv.GC_INIT_WITH_RECT);
      const m = mask.data as Uint8Array;
      for (let p = 0; p < n; p++) first[p] = m[p] === 1 || m[p] === 3 ? 1 : 0;
    }
  }
  const cx = (bx0 + bx1) / 2;
  const cy = (by0 + by1) / 2;
  // Sure subject: the first cut's piece at the box's centre, eroded; or the box's central ellipse.
  const firstPiece = keepComponents({ data: first, width: w, height: h }, [[cx, cy]]).data;
  const core = erodeBy(firstPiece, w, h, Math.max(2, Math.round(Math.min(bx1 - bx0, by1 - by0) * 0.08)));
  let coreArea = 0;
  for (let p = 0; p < n; p++) coreArea += core[p]!;
  const sure = new Uint8Array(n);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const p = y * w + x;
      const ellipse = ((x - cx) / ((bx1 - bx0) * 0.18)) ** 2 + ((y - cy) / ((by1 - by0) * 0.18)) ** 2 <= 1;
      sure[p] = coreArea > 0 ? core[p]! : ellipse ? 1 : 0;
    }
  const seeds: [number, number][] = [];
  for (let p = 0; p < n; p += 7) if (sure[p] && !strip[p]) seeds.push([p % w, Math.floor(p / w)]);
  if (!seeds.length) seeds.push([cx, cy]);

  // Probable subject: the first cut, the salient pieces joined to it, and around the box
  // whatever is not plainly of the background's colours.
  const salient = new Uint8Array(n);
  for (let p = 0; p < n; p++) salient[p] = far[p]! >= salientAt || firstPiece[p] || sure[p] ? 1 : 0;
  const opened = morph(cv, track, salient, w, h, "open", Math.max(1, Math.round(Math.max(w, h) * 0.006)));
  for (let p = 0; p < n; p++) if (firstPiece[p] || sure[p]) opened[p] = 1;
  const guess = keepComponents({ data: opened, width: w, height: h }, seeds).data;
  const init = new Uint8Array(n);
  for (let p = 0; p < n; p++)
    init[p] = strip[p]
      ? 0
      : sure[p]
        ? 1
        : guess[p] || (aroundBox(p % w, Math.floor(p / w)) && far[p]! >= salientAt * PLAIN)
          ? 3
          : 2;
  const maskMat = track(cv.matFromArray(h, w, cv.CV_8UC1, init));
  const bgd = track(new cv.Mat());
  const fgd = track(new cv.Mat());
  cv.setRNGSeed(0x5eed);
  cv.grabCut(img, maskMat, new cv.Rect(0, 0, w, h), bgd, fgd, 4, cv.GC_INIT_WITH_MASK);
  const m = maskMat.data as Uint8Array;
  const cut = new Uint8Array(n);
  for (let p = 0; p < n; p++) cut[p] = m[p] === 1 || m[p] === 3 ? 1 : 0;

  // One piece: what holds the sure core, gaps closed (a handle, a spoon's neck), no holes.
  let piece = keepComponents({ data: cut, width: w, height: h }, seeds).data;
  piece = morph(cv, track, piece, w, h, "close", Math.max(2, Math.round(Math.max(w, h) * 0.015)));
  piece = keepComponents({ data: piece, width: w, height: h }, seeds).data;
  const filled = fillHoles({ data: piece, width: w, height: h }).data;
  let inBox = 0;
  for (let y = by0; y < by1; y++) for (let x = bx0; x < bx1; x++) inBox += filled[y * w + x]!;
  return { mask: filled, seeds, inBox };
}

/**
 * How much of a mask's outline is the frame: the share of its boundary pixels on the image's
 * edge, and how many edges it covers for at least a fifth of their length.
 */
export function frameContact(mask: Uint8Array, w: number, h: number): { frameShare: number; edges: number } {
  let rim = 0;
  let onFrame = 0;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const p = y * w + x;
      if (!mask[p]) continue;
      const frame = x === 0 || y === 0 || x === w - 1 || y === h - 1;
      if (frame) {
        onFrame++;
        rim++;
      } else if (!mask[p - 1] || !mask[p + 1] || !mask[p - w] || !mask[p + w]) rim++;
    }
  const cover = (count: (i: number) => number, len: number) => {
    let c = 0;
    for (let i = 0; i < len; i++) c += count(i);
    return c / len;
  };
  const sides = [
    cover((x) => mask[x]!, w),
    cover((x) => mask[(h - 1) * w + x]!, w),
    cover((y) => mask[y * w]!, h),
    cover((y) => mask[y * w + w - 1]!, h),
  ];
  return { frameShare: rim ? onFrame / rim : 0, edges: sides.filter((c) => c >= 0.2).length };
}

/**
 * A badge for a subject with no whole silhouette (a close-up running off the frame): a
 * rounded square-ish die-cut shape (a superellipse, convex, no corners) over the subject's
 * bounds, at the photo's size. Everything inside it is the framed photo, honestly cropped.
 */
export function badgeMask(subject: Mask, exponent = 4): Mask {
  const { width, height } = subject;
  let [x0, y0, x1, y1] = [width, height, -1, -1];
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if (subject.data[y * width + x]) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
  if (x1 < 0) [x0, y0, x1, y1] = [0, 0, width - 1, height - 1];
  // Not much wider than tall (or the reverse): a badge, not a strip.
  let bw = x1 - x0 + 1;
  let bh = y1 - y0 + 1;
  const cx = (x0 + x1 + 1) / 2;
  const cy = (y0 + y1 + 1) / 2;
  if (bw > bh * 1.5) bw = bh * 1.5;
  if (bh > bw * 1.5) bh = bw * 1.5;
  const a = bw / 2;
  const b = bh / 2;
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      data[y * width + x] =
        Math.abs((x + 0.5 - cx) / a) ** exponent + Math.abs((y + 0.5 - cy) / b) ** exponent <= 1 ? 1 : 0;
  return { data, width, height };
}

/** Deterministic k-means of the given pixels' Lab colours (farthest-point start); the centres. */
function kmeans(lab: Uint8Array, pixels: number[], k: number, rounds = 8): Float32Array {
  const centres = new Float32Array(k * 3);
  const m = pixels.length;
  // Start: the mean, then repeatedly the sample farthest from every centre so far.
  const mean = [0, 0, 0];
  for (const p of pixels) for (let j = 0; j < 3; j++) mean[j]! += lab[p * 3 + j]!;
  for (let j = 0; j < 3; j++) centres[j] = mean[j]! / m;
  const best = new Float32Array(m).fill(Infinity);
  for (let c = 1; c < k; c++) {
    let pick = 0;
    for (let i = 0; i < m; i++) {
      best[i] = Math.min(best[i]!, dist(lab, pixels[i]!, centres, c - 1));
      if (best[i]! > best[pick]!) pick = i;
    }
    for (let j = 0; j < 3; j++) centres[c * 3 + j] = lab[pixels[pick]! * 3 + j]!;
  }
  const sums = new Float64Array(k * 4);
  for (let r = 0; r < rounds; r++) {
    sums.fill(0);
    for (const p of pixels) {
      let c = 0;
      for (let q = 1; q < k; q++) if (dist(lab, p, centres, q) < dist(lab, p, centres, c)) c = q;
      for (let j = 0; j < 3; j++) sums[c * 4 + j]! += lab[p * 3 + j]!;
      sums[c * 4 + 3]!++;
    }
    for (let c = 0; c < k; c++)
      if (sums[c * 4 + 3])
        for (let j = 0; j < 3; j++) centres[c * 3 + j] = sums[c * 4 + j]! / sums[c * 4 + 3]!;
  }
  return centres;
}

/** Lab distance with lightness weighted down (a shadow across a table is the same table). */
function dist(lab: Uint8Array, p: number, centres: Float32Array, c: number): number {
  return Math.sqrt(
    0.35 * (lab[p * 3]! - centres[c * 3]!) ** 2 +
      (lab[p * 3 + 1]! - centres[c * 3 + 1]!) ** 2 +
      (lab[p * 3 + 2]! - centres[c * 3 + 2]!) ** 2,
  );
}

function nearest(lab: Uint8Array, p: number, centres: Float32Array): number {
  let d = Infinity;
  for (let c = 0; c < centres.length / 3; c++) d = Math.min(d, dist(lab, p, centres, c));
  return d;
}

function erodeBy(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const out = new Uint8Array(w * h);
  // Separable square erosion (runs along rows, then columns).
  const rows = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    let run = 0;
    const left = new Int32Array(w);
    for (let x = 0; x < w; x++) left[x] = run = mask[y * w + x] ? run + 1 : 0;
    run = 0;
    for (let x = w - 1; x >= 0; x--) {
      run = mask[y * w + x] ? run + 1 : 0;
      rows[y * w + x] = left[x]! > r && run > r ? 1 : 0;
    }
  }
  for (let x = 0; x < w; x++) {
    let run = 0;
    const up = new Int32Array(h);
    for (let y = 0; y < h; y++) up[y] = run = rows[y * w + x] ? run + 1 : 0;
    run = 0;
    for (let y = h - 1; y >= 0; y--) {
      run = rows[y * w + x] ? run + 1 : 0;
      out[y * w + x] = up[y]! > r && run > r ? 1 : 0;
    }
  }
  return out;
}

/** Morphological open or close with an elliptic kernel of radius r (OpenCV). */
function morph(
  cv: any,
  track: <T extends { delete(): void }>(m: T) => T,
  mask: Uint8Array,
  w: number,
  h: number,
  op: "open" | "close",
  r: number,
): Uint8Array {
  const m = track(cv.matFromArray(h, w, cv.CV_8UC1, mask));
  const k = track(cv.getStructuringElement(cv.MORPH_ELLIPSE, new cv.Size(2 * r + 1, 2 * r + 1)));
  // Closing near the frame must not pull the frame in: pad first.
  const padded = track(new cv.Mat());
  cv.copyMakeBorder(m, padded, r, r, r, r, cv.BORDER_REPLICATE);
  cv.morphologyEx(padded, padded, op === "open" ? cv.MORPH_OPEN : cv.MORPH_CLOSE, k);
  const d = padded.data as Uint8Array;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) out[y * w + x] = d[(y + r) * (w + 2 * r) + x + r] ? 1 : 0;
  return out;
}
