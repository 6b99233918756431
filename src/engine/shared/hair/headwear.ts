import type { RawImage } from "../image-io";
import type { Face } from "../../vision/human";
import { EngineError } from "@/core/ports/renderer";
import { headGeometry, polygonMask } from "./hair-region";

/**
 * Headwear over the hairline (a cap, a hat with a badge or a brim, a headband): the hair
 * effects take the crown above the forehead for hair whatever its colour, so on a capped head
 * they paint the cap out as if it were hair and leave the hair under it. The crown band they
 * sample the hair colour from (hair-region.ts: a quarter of a face height above the forehead,
 * the middle 0.6 face widths, inside the person matte) is one hair colour on a bare head; on
 * a cap it is the cap's dark body against its light crown, badge or brim. Measured on the
 * scoring set: the luma spread (standard deviation) of that band is 12-36 on the eight
 * bare-headed portraits and 99 on Hopper's navy cap (and its watermarked copy).
 */

/** Above this luma spread in the crown band, the crown is not one hair colour: headwear. */
export const HEADWEAR_SPREAD = 55;

/** The crown band's luma spread (standard deviation, 0..255), or null with too few samples. */
export function crownSpread(src: RawImage, face: Face, matte: Buffer): number | null {
  const { width, height, data } = src;
  const { cx, top, fw, fh, oval } = headGeometry(face);
  const inOval = polygonMask(oval, width, height);
  const y0 = Math.max(0, Math.round(top - fh * 0.42));
  const y1 = Math.min(height - 1, Math.round(top - fh * 0.2));
  const x0 = Math.max(0, Math.round(cx - fw * 0.3));
  const x1 = Math.min(width - 1, Math.round(cx + fw * 0.3));
  let s = 0;
  let s2 = 0;
  let n = 0;
  for (let y = y0; y <= y1; y++)
    for (let x = x0; x <= x1; x++) {
      const i = y * width + x;
      if (matte[i]! <= 160 || inOval[i]) continue;
      const l = 0.299 * data[i * 3]! + 0.587 * data[i * 3 + 1]! + 0.114 * data[i * 3 + 2]!;
      s += l;
      s2 += l * l;
      n++;
    }
  // Too little of the crown in the matte (cropped at the top, bald): nothing to judge.
  if (n < Math.max(50, fw * fh * 0.01)) return null;
  const mean = s / n;
  return Math.sqrt(Math.max(0, s2 / n - mean * mean));
}

export function headwearError(): EngineError {
  return new EngineError(
    "Something covers the hairline (a hat, cap or headband), so the hair cannot be restyled. Please upload a photo with your hair and hairline uncovered.",
    false,
    "headwear",
  );
}

/** Throws `headwear` when the crown above the forehead is not one hair colour. */
export function requireBareHead(src: RawImage, face: Face, matte: Buffer): void {
  const spread = crownSpread(src, face, matte);
  if (spread !== null && spread > HEADWEAR_SPREAD) throw headwearError();
}
