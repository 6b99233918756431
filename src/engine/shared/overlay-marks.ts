import sharp from "sharp";
import { components, forEachPiece8 } from "./components";
import type { RawImage } from "./image-io";
import { textProbability } from "../vision/text-detector";

/**
 * Small overlaid marks a drawing should leave out: a watermark's name, a photographer's credit,
 * a social-media handle, and the logo printed beside it. The text detector (PP-OCRv4's DBNet,
 * vision/text-detector.ts) finds the words as thin bands (its map is shrunk from the glyphs'
 * boxes); each band is grown as DBNet's own post-processing does (by 1.5 times its area over
 * its perimeter, about 0.75 of its height) to cover the glyphs, descenders too (`text`). A logo is
 * rarely text, but it sits beside its name: the area around the words (4.5 times their height
 * to either side, twice above and below, `near`) holds it, and a line piece lying wholly in that area is
 * the mark's, not the photo's ({@link dropMarks}; three quarters in it: a logo's ring may touch
 * a line of the photo that runs on a little). Only small marks: a band taller than 1/12
 * of the picture's short side or longer than 60 % of its width is the photo's own text (a
 * sign, a poster), and a band on one of `exempt`'s boxes (a face) is kept.
 */
export interface OverlayMarks {
  /** 0/1 at the photo's size: the words. */
  text: Uint8Array;
  /** 0/1 at the photo's size: the words and the area around them where a logo sits. */
  near: Uint8Array;
}

/** The marks found at a `width` x `height` photo, resized to w x h (0/1, half-way thresholded). */
export async function marksAtSize(
  marks: OverlayMarks,
  width: number,
  height: number,
  w: number,
  h: number,
): Promise<OverlayMarks> {
  const at = async (m: Uint8Array) =>
    Uint8Array.from(
      await sharp(Buffer.from(m.map((v) => (v ? 255 : 0))), { raw: { width, height, channels: 1 } })
        .resize(w, h, { fit: "fill" })
        .extractChannel(0)
        .raw()
        .toBuffer(),
      (v) => (v >= 128 ? 1 : 0),
    );
  return { text: await at(marks.text), near: await at(marks.near) };
}

/** A piece with under this share of its pixels outside the area around the words is the mark's. */
const NEAR_SHARE_OUT = 0.25;

/** Text probability (0..255) at or above which a pixel is text. */
const TEXT_LEVEL = 77;

export async function overlayMarks(
  src: RawImage,
  exempt: Array<[number, number, number, number]> = [],
): Promise<OverlayMarks | null> {
  const { width, height } = src;
  const prob = await textProbability(src.data, width, height);
  const band = Uint8Array.from(prob, (v) => (v >= TEXT_LEVEL ? 1 : 0));
  const { labels, count } = components(band, width, height);
  if (!count) return null;
  const box = Array.from({ length: count + 1 }, () => [width, height, -1, -1, 0]);
  for (let p = 0; p < labels.length; p++) {
    const l = labels[p]!;
    if (!l) continue;
    const b = box[l]!;
    const x = p % width;
    const y = (p - x) / width;
    if (x < b[0]!) b[0] = x;
    if (y < b[1]!) b[1] = y;
    if (x > b[2]!) b[2] = x;
    if (y > b[3]!) b[3] = y;
    b[4]!++;
  }
  const text = new Uint8Array(width * height);
  const near = new Uint8Array(width * height);
  const fill = (m: Uint8Array, x0: number, y0: number, x1: number, y1: number) => {
    for (let y = Math.max(0, Math.round(y0)); y <= Math.min(height - 1, Math.round(y1)); y++)
      m.fill(1, y * width + Math.max(0, Math.round(x0)), y * width + Math.min(width - 1, Math.round(x1)) + 1);
  };
  let found = false;
  for (let l = 1; l <= count; l++) {
    const [x0, y0, x1, y1, area] = box[l] as [number, number, number, number, number];
    const bh = y1 - y0 + 1;
    const bw = x1 - x0 + 1;
    // A speck of probability, the photo's own big text, or text on a face: not an overlay mark.
    if (area < 20 || bh > Math.min(width, height) / 12 || bw > 0.6 * width) continue;
    const onExempt = exempt.some(([ex, ey, ew, eh]) => x0 < ex + ew && x1 > ex && y0 < ey + eh && y1 > ey);
    if (onExempt) continue;
    found = true;
    // DBNet's unclip (PaddleOCR's ratio 1.5): the band grown by 1.5 area / perimeter.
    const g = (1.5 * bw * bh) / (2 * (bw + bh));
    fill(text, x0 - g, y0 - g, x1 + g, y1 + g);
    // The words' height (the band grown), and the logo's place: 4.5 heights to either side, 2 above and below.
    const th = bh + 2 * g;
    fill(near, x0 - g - 4.5 * th, y0 - g - 2 * th, x1 + g + 4.5 * th, y1 + g + 2 * th);
  }
  return found ? { text, near } : null;
}

/**
 * Leaves a drawing's overlaid marks out, in place on `lines` (non-zero = line, w x h): the
 * lines on the words go, and every line piece (8-connected) lying at least three quarters in
 * the area around them (a logo beside its name), unless it lies mostly on the `subject` (>= 128
 * inside, at w x h: a pet's or a flower's own lines). `marks` are at w x h.
 */
export function dropMarks(
  lines: Uint8Array,
  w: number,
  h: number,
  marks: OverlayMarks,
  subject: Uint8Array | null = null,
): void {
  for (let i = 0; i < lines.length; i++) if (marks.text[i]) lines[i] = 0;
  forEachPiece8(lines, w, h, (piece) => {
    let outside = 0;
    let onSubject = 0;
    for (const p of piece) {
      if (!marks.near[p]) outside++;
      if (subject && subject[p]! >= 128) onSubject++;
    }
    if (outside < NEAR_SHARE_OUT * piece.length && onSubject <= piece.length / 2)
      for (const p of piece) lines[p] = 0;
  });
}
