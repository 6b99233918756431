import type { Face } from "../vision/human";

/**
 * The parts of a face a stylised rendering draws on purpose, from the face mesh (MediaPipe's
 * 468 points): the eyes, the brows, the nose and the mouth. Boxes in image pixels, grown by a
 * share of the face size so each part's outline is inside.
 */
const PARTS: number[][] = [
  // Right and left eye outlines.
  [33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246],
  [263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466],
  // Brows.
  [70, 63, 105, 66, 107, 55, 65, 52, 53, 46],
  [300, 293, 334, 296, 336, 285, 295, 282, 283, 276],
  // Nose tip and wings.
  [1, 2, 98, 327, 4, 5, 195, 129, 358, 48, 278],
  // Outer lips.
  [61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291, 409, 270, 269, 267, 0, 37, 39, 40, 185],
];

/** x, y, width, height. */
export type Box = [number, number, number, number];

export function featureBoxes(face: Face, padShare = 0.04): Box[] {
  if (face.mesh.length < 468) return [];
  const pad = Math.max(face.box[2], face.box[3]) * padShare;
  return PARTS.map((part) => {
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (const i of part) {
      const [x, y] = face.mesh[i]!;
      x0 = Math.min(x0, x);
      y0 = Math.min(y0, y);
      x1 = Math.max(x1, x);
      y1 = Math.max(y1, y);
    }
    return [x0 - pad, y0 - pad, x1 - x0 + 2 * pad, y1 - y0 + 2 * pad] as Box;
  });
}

/** A 0/1 mask (w x h) of the boxes, given in image pixels and scaled by `scale`. */
export function boxMask(boxes: Box[], w: number, h: number, scale: number): Uint8Array {
  const mask = new Uint8Array(w * h);
  for (const [bx, by, bw, bh] of boxes) {
    const xa = Math.max(0, Math.floor(bx * scale));
    const xb = Math.min(w, Math.ceil((bx + bw) * scale));
    const ya = Math.max(0, Math.floor(by * scale));
    const yb = Math.min(h, Math.ceil((by + bh) * scale));
    for (let y = ya; y < yb; y++) mask.fill(1, y * w + xa, y * w + Math.max(xa, xb));
  }
  return mask;
}
