import sharp from "sharp";
import { EngineError, type RenderResult } from "@/core/ports/renderer";

/**
 * Helpers for effects' finish.ts: keeping a measurable promise on a generative backend's
 * output. Every re-encode keeps the provider's metadata (provenance, EXIF, ICC).
 */

/** The failure code of an output that cannot keep the effect's promise (translated as a bad result). */
export const UNUSABLE_OUTPUT_CODE = "providerBadOutput";

export const unusableOutput = (reason: string): EngineError =>
  new EngineError(reason, false, UNUSABLE_OUTPUT_CODE);

/** A PNG result from sharp's output, sizes read back. */
export async function toResult(output: RenderResult, png: Buffer): Promise<RenderResult> {
  const meta = await sharp(png).metadata();
  return {
    ...output,
    bytes: new Uint8Array(png),
    mime: "image/png",
    width: meta.width!,
    height: meta.height!,
  };
}

/** The output reduced to at most `colours` flat colours (no dithering), as a palette PNG. */
export async function limitColours(output: RenderResult, colours: number): Promise<RenderResult> {
  const png = await sharp(Buffer.from(output.bytes))
    .keepMetadata()
    .removeAlpha()
    .png({ palette: true, colours, dither: 0, effort: 10 })
    .toBuffer();
  return toResult(output, png);
}

/** The output laid out on a page of exactly this size, on white, nothing cropped. */
export async function onPage(output: RenderResult, width: number, height: number): Promise<RenderResult> {
  if (output.width === width && output.height === height) return output;
  const png = await sharp(Buffer.from(output.bytes))
    .keepMetadata()
    .flatten({ background: "#ffffff" })
    .resize(width, height, { fit: "contain", background: "#ffffff" })
    .png()
    .toBuffer();
  return toResult(output, png);
}

/**
 * Whether the image is split into `n` x `n` cells: near each interior third (for n = 3) a
 * row (and a column) is either a light, even gutter running across the whole image or a
 * seam where the picture changes abruptly along its whole length.
 */
export async function looksLikeGrid(bytes: Uint8Array, n: number): Promise<boolean> {
  const size = 300;
  const { data, info } = await sharp(Buffer.from(bytes))
    .flatten({ background: "#ffffff" })
    .greyscale()
    .resize(size, size, { fit: "fill" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const w = info.width;
  const h = info.height;
  const at = (x: number, y: number) => data[y * w + x]!;
  const lines = (len: number, across: number, get: (i: number, j: number) => number) => {
    // For each line i: its mean, its spread, and the mean step to the next line.
    const stats: Array<{ mean: number; sd: number; step: number }> = [];
    for (let i = 0; i < len; i++) {
      let sum = 0;
      let sq = 0;
      let step = 0;
      for (let j = 0; j < across; j++) {
        const v = get(i, j);
        sum += v;
        sq += v * v;
        if (i + 1 < len) step += Math.abs(get(i + 1, j) - v);
      }
      const mean = sum / across;
      stats.push({ mean, sd: Math.sqrt(Math.max(0, sq / across - mean * mean)), step: step / across });
    }
    const steps = stats.map((s) => s.step).sort((a, b) => a - b);
    const typicalStep = Math.max(1, steps[Math.floor(steps.length / 2)]!);
    for (let k = 1; k < n; k++) {
      const centre = Math.round((len * k) / n);
      const reach = Math.round(len / (n * 4));
      let found = false;
      for (let i = Math.max(0, centre - reach); i <= Math.min(len - 1, centre + reach) && !found; i++) {
        const s = stats[i]!;
        const gutter = s.mean > 200 && s.sd < 12;
        const seam = s.step > typicalStep * 4 && s.step > 12;
        found = gutter || seam;
      }
      if (!found) return false;
    }
    return true;
  };
  const rows = lines(h, w, (y, x) => at(x, y));
  const cols = lines(w, h, (x, y) => at(x, y));
  return rows && cols;
}
