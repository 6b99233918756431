import { components } from "../../shared/components";
import { opencv } from "../../shared/opencv";

/**
 * Damage on an old print that a 5x5 median cannot take: scratches and creases (thin bright or
 * dark lines, any length) and dust larger than a speck. Morphology finds what stands out of
 * its surroundings in a thin or small shape: the white top-hat (the image minus its opening)
 * for bright damage, the black-hat (its closing minus the image) for dark damage, with a
 * 9 px element. A piece is damage when it is a line (long against its width, at most 5 px
 * wide) or a small spot (dust); a spot inside a face is left alone (an eye, a nostril), a line
 * across it is not. Returns the pixels to inpaint (grown by 1 px), or null.
 */
const CONTRAST = 30;
const MAX_WIDTH = 5;
const MIN_ELONGATION = 6;
const MAX_SPOT = 60;
/** Damage covers little of a print; past this share the finds are the photo's own texture. */
const MAX_SHARE = 0.012;

export async function findDefects(
  rgb: Buffer,
  width: number,
  height: number,
  faces: Array<[number, number, number, number]>,
): Promise<Uint8Array | null> {
  const { cv } = await opencv();
  const n = width * height;
  const grey = new Uint8Array(n);
  for (let i = 0; i < n; i++)
    grey[i] = Math.round(0.299 * rgb[i * 3]! + 0.587 * rgb[i * 3 + 1]! + 0.114 * rgb[i * 3 + 2]!);
  const src = cv.matFromArray(height, width, cv.CV_8UC1, grey);
  const kernel = cv.getStructuringElement(cv.MORPH_ELLIPSE, new cv.Size(9, 9));
  const top = new cv.Mat();
  const black = new cv.Mat();
  let candidate: Uint8Array;
  try {
    cv.morphologyEx(src, top, cv.MORPH_TOPHAT, kernel);
    cv.morphologyEx(src, black, cv.MORPH_BLACKHAT, kernel);
    const t = top.data as Uint8Array;
    const b = black.data as Uint8Array;
    candidate = new Uint8Array(n);
    for (let i = 0; i < n; i++) if (t[i]! > CONTRAST || b[i]! > CONTRAST) candidate[i] = 1;
  } finally {
    src.delete();
    kernel.delete();
    top.delete();
    black.delete();
  }
  const inFace = (x: number, y: number) =>
    faces.some(([fx, fy, fw, fh]) => x >= fx && x < fx + fw && y >= fy && y < fy + fh);

  const { labels, count } = components(candidate, width, height);
  if (!count) return null;
  const area = new Uint32Array(count + 1);
  const x0 = new Int32Array(count + 1).fill(width);
  const x1 = new Int32Array(count + 1).fill(-1);
  const y0 = new Int32Array(count + 1).fill(height);
  const y1 = new Int32Array(count + 1).fill(-1);
  for (let i = 0; i < n; i++) {
    const l = labels[i]!;
    if (!l) continue;
    const x = i % width;
    const y = (i - x) / width;
    area[l]!++;
    x0[l] = Math.min(x0[l]!, x);
    x1[l] = Math.max(x1[l]!, x);
    y0[l] = Math.min(y0[l]!, y);
    y1[l] = Math.max(y1[l]!, y);
  }
  const keep = new Uint8Array(count + 1);
  let any = false;
  for (let l = 1; l <= count; l++) {
    const length = Math.hypot(x1[l]! - x0[l]! + 1, y1[l]! - y0[l]! + 1);
    const meanWidth = area[l]! / length;
    const line = length / Math.max(1, meanWidth) >= MIN_ELONGATION && meanWidth <= MAX_WIDTH;
    const spot = area[l]! <= MAX_SPOT && !inFace((x0[l]! + x1[l]!) / 2, (y0[l]! + y1[l]!) / 2);
    if (line || spot) {
      keep[l] = 1;
      any = true;
    }
  }
  if (!any) return null;
  const mask = new Uint8Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (!keep[labels[i]!]) continue;
    mask[i] = 1;
    total++;
  }
  // So many "defects" are texture (fur, foliage, a patterned dress), not damage: leave it.
  if (total > n * MAX_SHARE) return null;
  // One pixel more: the damage's soft edge.
  const grown = new Uint8Array(n);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      if (!mask[y * width + x]) continue;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const yy = y + dy;
          const xx = x + dx;
          if (yy >= 0 && yy < height && xx >= 0 && xx < width) grown[yy * width + xx] = 1;
        }
    }
  return grown;
}
