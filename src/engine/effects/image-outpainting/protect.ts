import sharp from "sharp";
import type { RawImage } from "../../shared/image-io";
import { detectFaces, detectObjects, personMatte } from "../../vision/human";

/**
 * What the extension must never copy: the photo's subjects. Quilting copies blocks of the
 * photo; a block taken from a face, a person or an object puts a second, partial copy of it
 * into the new area (a ghost arm, a duplicated head). This marks, on the coarse photo:
 *  - 2: heads (face box grown to take in hair and chin) and named objects: never copied;
 *  - 1: the rest of a person (the person matte): copied only next to the border it continues
 *    (a shirt cut by the bottom edge goes on downward), never from the middle of the photo;
 *  - 0: background, free to copy.
 */
export const HARD = 2;
export const SOFT = 1;

/** Long side the detectors see (faces and objects are found well at this size; about 0.3 s). */
const DETECT_SIDE = 640;
/** An object box larger than this share of the photo is the scene (a table, a bed), not a subject. */
const MAX_OBJECT_SHARE = 0.45;

export async function protectedMap(src: RawImage, cw: number, ch: number): Promise<Uint8Array> {
  const scale = Math.min(1, DETECT_SIDE / Math.max(src.width, src.height));
  const dw = Math.max(1, Math.round(src.width * scale));
  const dh = Math.max(1, Math.round(src.height * scale));
  const small =
    scale === 1
      ? src.data
      : await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
          .resize(dw, dh, { fit: "fill" })
          .raw()
          .toBuffer();
  const pixels = { data: small, width: dw, height: dh };
  const { faces } = await detectFaces(pixels);
  const objects = await detectObjects(pixels, 0.35);
  const { alpha } = await personMatte(pixels);

  const map = new Uint8Array(cw * ch);
  const sx = dw / cw;
  const sy = dh / ch;
  // The person matte (soft), sampled at each coarse pixel's centre.
  for (let y = 0; y < ch; y++) {
    const py = Math.min(dh - 1, Math.floor((y + 0.5) * sy));
    for (let x = 0; x < cw; x++) {
      const px = Math.min(dw - 1, Math.floor((x + 0.5) * sx));
      if (alpha[py * dw + px]! >= 128) map[y * cw + x] = SOFT;
    }
  }
  const mark = (x0: number, y0: number, x1: number, y1: number) => {
    const cx0 = Math.max(0, Math.floor(x0 / sx));
    const cy0 = Math.max(0, Math.floor(y0 / sy));
    const cx1 = Math.min(cw, Math.ceil(x1 / sx));
    const cy1 = Math.min(ch, Math.ceil(y1 / sy));
    for (let y = cy0; y < cy1; y++) for (let x = cx0; x < cx1; x++) map[y * cw + x] = HARD;
  };
  for (const f of faces) {
    const [x, y, w, h] = f.box;
    // The face detector's box already has a margin round the face; a little more takes in
    // the forehead and chin (the hair is the matte's: soft).
    mark(x - 0.1 * w, y - 0.25 * h, x + 1.1 * w, y + 1.1 * h);
  }
  const area = dw * dh;
  for (const o of objects) {
    const [x, y, w, h] = o.box;
    if ((w * h) / area > MAX_OBJECT_SHARE) continue;
    // People are covered by the matte (soft) and their heads (hard).
    if (o.label === "person") continue;
    mark(x - 0.08 * w, y - 0.08 * h, x + 1.08 * w, y + 1.08 * h);
  }
  return grow(map, cw, ch, 1);
}

/** Each level grown by `r` coarse pixels (square), a level never lowered. */
function grow(map: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const out = Uint8Array.from(map);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const v = map[y * w + x]!;
      if (!v) continue;
      for (let dy = -r; dy <= r; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -r; dx <= r; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const k = yy * w + xx;
          if (out[k]! < v) out[k] = v;
        }
      }
    }
  }
  return out;
}
