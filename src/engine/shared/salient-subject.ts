import sharp from "sharp";
import { largestComponent } from "./components";
import type { RawImage } from "./image-io";
import { cutOutSubjectWhole } from "./line-budget";
import { fillHoles } from "./mask";
import { opencv } from "./opencv";

/**
 * The subject of a photo the detectors name nothing in (no face, no pet or object): a flower,
 * a dandelion clock, a shell in front of a soft background. Found by focus: the photographer's
 * subject is the sharp part of the picture (local detail energy, the squared difference of the
 * grey image from its blur at 1.2 px, averaged over 1/40 of the side, at FOCUS_SIDE px); the
 * largest piece at least half as sharp as the sharpest 1 % is the subject's candidate. Only a
 * clear one is taken: the sharpest 1 % at least FOCUS_CONTRAST times the median (a photo sharp
 * all over, a landscape or a textured wall, has none), the piece between 1 % and 40 % of the
 * picture, at least FOCUS_CONTRAST times sharper on average than the rest, and touching the
 * picture's frame with under a third of its boundary. It is then cut out like a named object
 * (GrabCut from its box padded by 15 %, completed: `cutOutSubjectWhole`), and the cut is kept
 * to the sharp area grown by 1/40 of the side (a soft, out-of-focus flower of the same colour
 * next to it is background).
 */
const FOCUS_SIDE = 384;
const FOCUS_CONTRAST = 2.5;
const REACH = 1 / 60;

/** The subject's mask (0/255 at the photo's size), or null when the photo has no clearly sharp subject. */
export async function salientSubject(src: RawImage): Promise<Uint8Array | null> {
  const { width, height } = src;
  const s = Math.min(1, FOCUS_SIDE / Math.max(width, height));
  const w = Math.max(16, Math.round(width * s));
  const h = Math.max(16, Math.round(height * s));
  const n = w * h;
  const focus = await focusMap(src, w, h, Math.max(w, h) / 40);
  const sorted = Float32Array.from(focus).sort();
  const top = sorted[Math.floor(n * 0.99)]!;
  const median = sorted[Math.floor(n * 0.5)]!;
  if (!(top > 0) || top < FOCUS_CONTRAST * median) return null;

  const sharp0 = Uint8Array.from(focus, (v) => (v >= 0.5 * top ? 1 : 0));
  const blob = largestComponent(sharp0, w, h);
  let area = 0;
  let sumIn = 0;
  let sumOut = 0;
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  let rim = 0;
  let onFrame = 0;
  for (let p = 0; p < n; p++) {
    if (!blob[p]) {
      sumOut += focus[p]!;
      continue;
    }
    const x = p % w;
    const y = (p - x) / w;
    area++;
    sumIn += focus[p]!;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
    const frame = x === 0 || y === 0 || x === w - 1 || y === h - 1;
    if (frame || !blob[p - 1] || !blob[p + 1] || !blob[p - w] || !blob[p + w]) {
      rim++;
      if (frame) onFrame++;
    }
  }
  if (area < 0.01 * n || area > 0.4 * n || onFrame > rim / 3) return null;
  if (sumIn / area < FOCUS_CONTRAST * (sumOut / Math.max(1, n - area))) return null;

  // Cut out from the sharp piece's box, padded by 15 %.
  const k = width / w;
  const bw = (x1 - x0 + 1) * k;
  const bh = (y1 - y0 + 1) * k;
  const bx = Math.max(0, Math.round(x0 * k - 0.15 * bw));
  const by = Math.max(0, Math.round(y0 * k - 0.15 * bh));
  const box: [number, number, number, number] = [
    bx,
    by,
    Math.min(width - bx, Math.round(1.3 * bw)),
    Math.min(height - by, Math.round(1.3 * bh)),
  ];
  const cut = await cutOutSubjectWhole(src, box);
  if (!cut) return null;

  // Only the cut's part near the sharp area (the sharp piece at a finer scale, without holes,
  // grown by REACH of the side): the largest piece, without holes.
  const fine = await focusMap(src, w, h, Math.max(w, h) / 80);
  const core = new Uint8Array(n);
  for (let p = 0; p < n; p++) core[p] = fine[p]! >= 0.5 * top && blob[p] ? 1 : 0;
  const filled = fillHoles({ data: largestComponent(core, w, h), width: w, height: h }).data;
  const reach = await grownAtPhotoSize(
    filled,
    w,
    h,
    width,
    height,
    Math.max(2, Math.round(REACH * Math.max(w, h))),
  );
  const kept = new Uint8Array(width * height);
  for (let i = 0; i < kept.length; i++) kept[i] = cut[i]! >= 128 && reach[i] ? 1 : 0;
  // Rounded: an opening of 1/30 of the side (at w x h) takes off a tail (a stalk's top) and a
  // neighbour's rim.
  const opened = await openedAtPhotoSize(
    kept,
    width,
    height,
    w,
    h,
    Math.max(1, Math.round(Math.max(w, h) / 30)),
  );
  for (let i = 0; i < kept.length; i++) if (!opened[i]) kept[i] = 0;
  const whole = fillHoles({ data: largestComponent(kept, width, height), width, height });
  let inside = 0;
  for (const v of whole.data) inside += v;
  if (inside < 0.01 * width * height) return null;
  return Uint8Array.from(whole.data, (v) => (v ? 255 : 0));
}

/** Local detail energy (the root of the mean squared difference of the grey image from its blur), at w x h. */
async function focusMap(src: RawImage, w: number, h: number, sigma: number): Promise<Float32Array> {
  const { cv } = await opencv();
  const grey = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .resize(w, h, { fit: "fill" })
    .greyscale()
    .raw()
    .toBuffer();
  const g = cv.matFromArray(h, w, cv.CV_8UC1, grey);
  const f = new cv.Mat();
  const blur = new cv.Mat();
  try {
    g.convertTo(f, cv.CV_32F);
    cv.GaussianBlur(f, blur, new cv.Size(0, 0), 1.2);
    cv.subtract(f, blur, f);
    cv.multiply(f, f, f);
    cv.GaussianBlur(f, f, new cv.Size(0, 0), sigma);
    return Float32Array.from(f.data32F as Float32Array, (v) => Math.sqrt(Math.max(0, v)));
  } finally {
    g.delete();
    f.delete();
    blur.delete();
  }
}

/** 0/1 at the photo's size: `mask` (0/1 at w x h) grown by `r` px of w x h. */
async function grownAtPhotoSize(
  mask: Uint8Array,
  w: number,
  h: number,
  width: number,
  height: number,
  r: number,
): Promise<Uint8Array> {
  const { cv } = await opencv();
  const m = cv.matFromArray(
    h,
    w,
    cv.CV_8UC1,
    Uint8Array.from(mask, (v) => (v ? 255 : 0)),
  );
  const kernel = cv.getStructuringElement(cv.MORPH_ELLIPSE, new cv.Size(2 * r + 1, 2 * r + 1));
  try {
    cv.dilate(m, m, kernel);
    const up = await sharp(Buffer.from(m.data as Uint8Array), { raw: { width: w, height: h, channels: 1 } })
      .resize(width, height, { fit: "fill", kernel: "nearest" })
      .extractChannel(0)
      .raw()
      .toBuffer();
    return Uint8Array.from(up, (v) => (v >= 128 ? 1 : 0));
  } finally {
    m.delete();
    kernel.delete();
  }
}

/** 0/1 at the photo's size: `mask` (0/1, width x height) opened at w x h with a disc of radius `r`. */
async function openedAtPhotoSize(
  mask: Uint8Array,
  width: number,
  height: number,
  w: number,
  h: number,
  r: number,
): Promise<Uint8Array> {
  const { cv } = await opencv();
  const small = await sharp(Buffer.from(mask.map((v) => (v ? 255 : 0))), {
    raw: { width, height, channels: 1 },
  })
    .resize(w, h, { fit: "fill" })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const m = cv.matFromArray(
    h,
    w,
    cv.CV_8UC1,
    Uint8Array.from(small, (v) => (v >= 128 ? 255 : 0)),
  );
  const kernel = cv.getStructuringElement(cv.MORPH_ELLIPSE, new cv.Size(2 * r + 1, 2 * r + 1));
  try {
    cv.morphologyEx(m, m, cv.MORPH_OPEN, kernel);
    const up = await sharp(Buffer.from(m.data as Uint8Array), { raw: { width: w, height: h, channels: 1 } })
      .resize(width, height, { fit: "fill", kernel: "linear" })
      .extractChannel(0)
      .raw()
      .toBuffer();
    return Uint8Array.from(up, (v) => (v >= 128 ? 1 : 0));
  } finally {
    m.delete();
    kernel.delete();
  }
}
