import type { RenderRequest } from "@/core/ports/renderer";
import { firstImage, openInput, readable, type EffectOutput } from "../../shared/image-io";

/**
 * Inverted Face Filter: the photo exactly as a mirror (or a selfie camera) shows it, i.e.
 * flipped left to right. Pixels are moved, never resampled, so apart from the size cap
 * the output is the input's pixels in mirrored order. Transparency is kept.
 */
export async function render(req: RenderRequest): Promise<EffectOutput> {
  const bytes = firstImage(req);
  return readable(async () => {
    const { data, info } = await openInput(bytes)
      // flop = mirror about the vertical axis; sharp applies it after orientation/resize.
      .flop()
      .png({ compressionLevel: 6, adaptiveFiltering: false })
      .toBuffer({ resolveWithObject: true });
    return { bytes: data, width: info.width, height: info.height };
  });
}
