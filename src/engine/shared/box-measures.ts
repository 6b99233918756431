import sharp from "sharp";
import { raw } from "./test-utils";

/**
 * Test helper shared by 3d-caricature and 3d-finger: fine detail (mean absolute Laplacian of
 * the grey levels) inside a box, resampled to a fixed size so boxes of different sizes compare.
 */
export async function boxDetail(bytes: Uint8Array, box: [number, number, number, number]): Promise<number> {
  const g = await boxGray(bytes, box, 160);
  let sum = 0;
  for (let y = 1; y < 159; y++)
    for (let x = 1; x < 159; x++) {
      const i = y * 160 + x;
      sum += Math.abs(4 * g[i]! - g[i - 1]! - g[i + 1]! - g[i - 160]! - g[i + 160]!);
    }
  return sum / (158 * 158);
}

/** Grey levels of a box (clipped to the image), resampled to size x size. */
export async function boxGray(
  bytes: Uint8Array,
  [x, y, w, h]: [number, number, number, number],
  size: number,
): Promise<Float64Array> {
  const meta = await sharp(Buffer.from(bytes)).metadata();
  const left = Math.max(0, Math.round(x));
  const top = Math.max(0, Math.round(y));
  const crop = await raw(
    await sharp(Buffer.from(bytes))
      .extract({
        left,
        top,
        width: Math.min(meta.width! - left, Math.round(w)),
        height: Math.min(meta.height! - top, Math.round(h)),
      })
      .resize(size, size, { fit: "fill" })
      .png()
      .toBuffer(),
  );
  const g = new Float64Array(size * size);
  for (let i = 0; i < size * size; i++)
    g[i] = (crop.data[i * 3]! + crop.data[i * 3 + 1]! + crop.data[i * 3 + 2]!) / 3;
  return g;
}
