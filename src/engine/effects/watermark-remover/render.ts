import { textProbability } from "../../vision/text-detector";
import { decodeRaw, encodePng, firstImage, type EffectOutput } from "../../shared/image-io";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { inpaintRgb } from "../../shared/opencv";
import { growMask } from "./morphology";
import { findInkedText } from "./inked";
import { unblend, type InkPoint } from "./ink-point";
import { findOpaqueText } from "./opaque";
import { ghostGlyphs } from "./ghosts";
import { findWhiteOverlay, removeWhiteOverlay } from "./overlay";
import { findTranslucentDark } from "./translucent";

/** Above this opacity an ink patch is inpainted, not un-blended (noise grows as 1/(1 − a)). */
const MAX_UNBLEND_ALPHA = 0.8;
/** The anti-aliased rim around an un-blended patch, inpainted. */
const UNBLEND_RIM = 3;

/** Un-blended colours this far outside 0..255 are an ink that does not fit there: inpainted instead. */
const MAX_CLIP = 12;

/**
 * Writes into `out` the un-blended colour of `src` under `mask`, C = (I − a·K) / (1 − a), and
 * marks in `fill` the pixels where C leaves the colour cube by more than MAX_CLIP (clipped,
 * they would be blotches of the ink's opposite colour: green under a red ink).
 */
function unblendInk(out: Buffer, src: Buffer, mask: Uint8Array, point: InkPoint, fill: Uint8Array): Buffer {
  const c = [0, 0, 0];
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    unblend(src, i, point, c);
    for (let k = 0; k < 3; k++) {
      if (c[k]! < -MAX_CLIP || c[k]! > 255 + MAX_CLIP) fill[i] = 1;
      out[i * 3 + k] = Math.min(255, Math.max(0, Math.round(c[k]!)));
    }
  }
  return out;
}

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
  let inked = await findInkedText(data, width, height, text, handled);
  // Translucent dark text the detector does not see (translucent.ts): looked for when nothing
  // else was found (a photo with a mark found above has its mark; this costs a second or two).
  if (!overlay.found && !opaque && !inked) {
    const dark = await findTranslucentDark(data, width, height, null);
    if (dark) inked = { inpaint: new Uint8Array(width * height), unblend: [dark] };
  }
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
  if (inked) {
    const fill = Uint8Array.from(inked.inpaint);
    for (const mark of inked.unblend) {
      // Un-blended where the ink lets enough of the photo through; its anti-aliased rim (a
      // lower opacity) and near-opaque ink (un-blending would multiply JPEG noise) are inpainted.
      if (mark.point.alpha > MAX_UNBLEND_ALPHA) {
        for (let i = 0; i < fill.length; i++) if (mark.mask[i]) fill[i] = 1;
        continue;
      }
      out = unblendInk(out === data ? Buffer.from(data) : out, data, mark.mask, mark.point, fill);
      // The band either side of the patch's edge: anti-aliasing and JPEG's halved chroma leave
      // the ink there at a lower opacity, which full un-blending over-corrects (a coloured outline).
      const outer = growMask(mark.mask, width, height, UNBLEND_RIM);
      const inverse = new Uint8Array(fill.length);
      for (let i = 0; i < fill.length; i++) inverse[i] = mark.mask[i] ? 0 : 1;
      const inner = growMask(inverse, width, height, UNBLEND_RIM);
      for (let i = 0; i < fill.length; i++) if (outer[i] && inner[i]) fill[i] = 1;
    }
    out = await inpaintRgb(out, width, height, fill, INPAINT_RADIUS);
  }
  return encodePng({ data: out, width, height, channels: 3 });
}
