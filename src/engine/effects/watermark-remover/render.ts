import { textProbability } from "../../vision/text-detector";
import { decodeRaw, encodePng, firstImage, type EffectOutput } from "../../shared/image-io";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { inpaintRgb } from "../../shared/opencv";
import { growMask } from "./morphology";
import { findInkedText } from "./inked";
import { findOpaqueText } from "./opaque";
import { ghostGlyphs } from "./ghosts";
import { findWhiteOverlay, removeWhiteOverlay } from "./overlay";

/** Pixels around each inpainted pixel that Telea's method draws from. */
const INPAINT_RADIUS = 6;

/**
 * Watermark Remover: finds a semi-transparent white overlay (text or logo) with the text
 * detector and a per-pixel opacity model, then un-blends it, which restores the photo under
 * the overlay instead of painting over it; opaque text (which hides the photo) is inpainted.
 * See RECIPE.md for what it does not remove.
 */
export async function render(req: RenderRequest): Promise<EffectOutput> {
  const src = await decodeRaw(firstImage(req), { channels: 3, flatten: true });
  const { data, width, height } = src;
  const text = await textProbability(data, width, height);
  const overlay = await findWhiteOverlay(data, width, height, text);
  const opaque = findOpaqueText(data, width, height, text);
  // Text in any other ink (coloured, grey, translucent dark), away from what was found above.
  const handled = new Uint8Array(width * height);
  for (let i = 0; i < handled.length; i++)
    if ((overlay.found && overlay.perPixel[i]! > 0) || opaque?.[i]) handled[i] = 1;
  const inked = await findInkedText(data, width, height, text, handled);
  if (!overlay.found && !opaque && !inked)
    throw new EngineError("No watermark or overlaid text was found in this image.", false, "noWatermark");
  if (opaque) {
    // Opaque glyphs are inpainted from their surroundings: those must stay the photo's own
    // pixels, not an un-blended glyph edge (it would be smeared back into the hole).
    const near = growMask(opaque, width, height, INPAINT_RADIUS);
    for (let i = 0; i < near.length; i++) if (near[i]) overlay.perPixel[i] = 0;
  }
  let out = overlay.found ? removeWhiteOverlay(data, overlay.perPixel) : data;
  if (overlay.found) {
    // Thin near-opaque strokes come out of un-blending as readable ghosts: inpainted (ghosts.ts).
    const ghosts = await ghostGlyphs(data, overlay.perPixel, width, height);
    if (ghosts) out = await inpaintRgb(out, width, height, ghosts, INPAINT_RADIUS);
  }
  if (opaque) out = await inpaintRgb(out, width, height, opaque, INPAINT_RADIUS);
  if (inked) out = await inpaintRgb(out, width, height, inked, INPAINT_RADIUS);
  return encodePng({ data: out, width, height, channels: 3 });
}
