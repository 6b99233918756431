import sharp from "sharp";
import { sobel } from "../../shared/edges";
import { decodeRaw, encodePng, firstImage, transformRaw, type EffectOutput } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";

/**
 * Game-poster illustration: flattened cel-shaded colour regions (edge-preserving smoothing,
 * then a 16-colour palette without dithering), a saturated, contrasty grade, and bold dark
 * outlines drawn from the smoothed image's strongest edges.
 */
const WORK_SIDE = 1280;
export const POSTER_COLOURS = 16;
/** Outline ink: a very dark blue-black, as poster art inks. */
export const INK: readonly [number, number, number] = [18, 16, 28];

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const src = await decodeRaw(firstImage(req), { channels: 3, flatten: true, maxSide: WORK_SIDE });
  const { width, height } = src;
  // Median filters flatten texture but keep edges (a cheap stand-in for a bilateral filter).
  const smooth = await transformRaw(src, (img) =>
    img.median(5).median(5).modulate({ saturation: 1.55, brightness: 1.03 }).linear(1.18, -18),
  );
  const flat = await sharp(smooth.data, { raw: { width, height, channels: 3 } })
    .png({ palette: true, colours: POSTER_COLOURS, dither: 0, effort: 7 })
    .toBuffer();
  const cel = await sharp(flat).removeAlpha().raw().toBuffer();

  // Bold outlines: strong gradients of the smoothed luminance, thickened to about 3 px.
  const gray = new Uint8Array(width * height);
  for (let i = 0; i < width * height; i++) {
    gray[i] =
      (0.299 * smooth.data[i * 3]! + 0.587 * smooth.data[i * 3 + 1]! + 0.114 * smooth.data[i * 3 + 2]!) | 0;
  }
  const { mag } = sobel(gray, width, height);
  const sorted = Float32Array.from(mag).sort();
  const threshold = Math.max(36, sorted[Math.floor(sorted.length * 0.87)]!);
  const edge = Buffer.alloc(width * height);
  for (let i = 0; i < mag.length; i++) if (mag[i]! >= threshold) edge[i] = 255;
  const thick = await sharp(edge, { raw: { width, height, channels: 1 } })
    // sharp's morphology treats dark as foreground: erode() grows these white edge pixels.
    .erode(1)
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
  for (let i = 0; i < width * height; i++) {
    if (thick[i]! > 127) {
      cel[i * 3] = INK[0];
      cel[i * 3 + 1] = INK[1];
      cel[i * 3 + 2] = INK[2];
    }
  }
  return encodePng({ data: cel, width, height, channels: 3 });
}
