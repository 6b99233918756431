import { textProbability } from "../../vision/text-detector";
import { decodeRaw, encodePng, firstImage, type EffectOutput } from "../../local/image-io";
import { EngineError, type RenderRequest } from "../../types";
import { findWhiteOverlay, removeWhiteOverlay } from "./overlay";

/**
 * Watermark Remover: finds a semi-transparent white overlay (text or logo) with the text
 * detector and a per-pixel opacity model, then un-blends it, which restores the photo under
 * the overlay instead of painting over it. See RECIPE.md for what it does not remove.
 */
export async function render(req: RenderRequest): Promise<EffectOutput> {
  const src = await decodeRaw(firstImage(req), { channels: 3, flatten: true });
  const { data, width, height } = src;
  const text = await textProbability(data, width, height);
  const overlay = await findWhiteOverlay(data, width, height, text);
  if (!overlay.found)
    throw new EngineError("No watermark or overlaid text was found in this image.", false, "noWatermark");
  return encodePng({ data: removeWhiteOverlay(data, overlay.perPixel), width, height, channels: 3 });
}
