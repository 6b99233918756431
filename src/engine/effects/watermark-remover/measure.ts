/**
 * PSNR inside and outside the watermark regions, against the clean original: how the
 * watermark fixtures (made from clean photos) measure this effect, in tests and in
 * `npm run bench:watermark`.
 */
import sharp from "sharp";
import { growMask } from "./morphology";

/** Mean channel difference above which a pixel belongs to the watermark. */
const MARKED = 20;
/** The region also takes the anti-aliased rim around the marked pixels. */
const RIM = 3;

export interface WatermarkScore {
  /** Share of the image inside the watermark regions. */
  regionShare: number;
  insideBefore: number;
  insideAfter: number;
  outsideBefore: number;
  outsideAfter: number;
  /**
   * Share of the image's pixels the effect made clearly worse (summed channel error up by more
   * than 60 levels): over-correction shows up here as blotches even when PSNR improves.
   */
  worsened: number;
}

function psnr(a: Buffer, b: Buffer, mask: Uint8Array, inside: boolean): number {
  let se = 0;
  let n = 0;
  for (let i = 0; i < mask.length; i++) {
    if (Boolean(mask[i]) !== inside) continue;
    for (let c = 0; c < 3; c++) se += (a[i * 3 + c]! - b[i * 3 + c]!) ** 2;
    n += 3;
  }
  return 10 * Math.log10((255 * 255) / (se / n));
}

/** Scores `output` (any encoded image of the input's size) against `clean`. */
export async function scoreWatermarkRemoval(
  input: Uint8Array,
  output: Uint8Array,
  clean: Uint8Array,
): Promise<WatermarkScore> {
  const inp = await sharp(input).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = inp.info;
  const at = (bytes: Uint8Array) =>
    sharp(bytes).resize(width, height, { fit: "fill" }).removeAlpha().raw().toBuffer();
  const [out, gt] = await Promise.all([at(output), at(clean)]);
  const marked = new Uint8Array(width * height);
  for (let i = 0; i < marked.length; i++) {
    // Any ink: white, black or coloured marks all move the photo's pixels.
    const d =
      (Math.abs(inp.data[i * 3]! - gt[i * 3]!) +
        Math.abs(inp.data[i * 3 + 1]! - gt[i * 3 + 1]!) +
        Math.abs(inp.data[i * 3 + 2]! - gt[i * 3 + 2]!)) /
      3;
    if (d > MARKED) marked[i] = 1;
  }
  const region = growMask(marked, width, height, RIM);
  let worse = 0;
  for (let i = 0; i < marked.length; i++) {
    let before = 0;
    let after = 0;
    for (let c = 0; c < 3; c++) {
      before += Math.abs(inp.data[i * 3 + c]! - gt[i * 3 + c]!);
      after += Math.abs(out[i * 3 + c]! - gt[i * 3 + c]!);
    }
    if (after - before > 60) worse++;
  }
  return {
    regionShare: region.reduce((s, v) => s + v, 0) / region.length,
    insideBefore: psnr(inp.data, gt, region, true),
    insideAfter: psnr(out, gt, region, true),
    outsideBefore: psnr(inp.data, gt, region, false),
    outsideAfter: psnr(out, gt, region, false),
    worsened: worse / marked.length,
  };
}

/** The fixture pairs: watermarked photo and the clean original it was made from. */
export const WATERMARK_FIXTURES = [
  { watermarked: "watermark-1-landscape-tiled.jpg", clean: "landscape-1-meadow-cc0.jpg" },
  { watermarked: "watermark-2-portrait-centered.jpg", clean: "portrait-male-1.jpg" },
  { watermarked: "watermark-3-logo-corner.jpg", clean: "portrait-male-2.jpg" },
  { watermarked: "watermark-4-opaque-text.jpg", clean: "portrait-female-1.jpg" },
] as const;
