import { textProbability } from "../../vision/text-detector";
import { decodeRaw, encodePng, firstImage, type EffectOutput } from "../../shared/image-io";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { inpaintRgb } from "../../shared/opencv";
import { growMask } from "./morphology";
import { findInkedText } from "./inked";
import { maskBox, unblend, type InkPoint } from "./ink-point";
import { findOpaqueText } from "./opaque";
import { ghostGlyphs } from "./ghosts";
import { findWhiteOverlay, removeWhiteOverlay } from "./overlay";
import { findTranslucentDark } from "./translucent";
import { insideDistance } from "./strokes";
import { backgroundBehind } from "./background";

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

/** Radius (px) of the photo a soft un-blending pixel is compared with: just past a stroke's middle. */
const AROUND_RADIUS = 6;

/**
 * Per pixel, the mean colour of the pixels outside `mask` within a (2r+1)² box (integral
 * images); where there is none, the pixel itself. The photo right beside a glyph: a wider
 * estimate (a normalized convolution at 1/4 scale) misses the light on a nose or a cheekbone
 * under the letters, and the un-blended letters there looked wrong against it.
 */
function localMean(
  src: Buffer,
  mask: Uint8Array,
  width: number,
  height: number,
  r: number,
  /** Used where fewer than 4 unmasked pixels are in the box (default: the pixel itself). */
  fallback?: Float32Array,
): Float32Array {
  const W = width + 1;
  const sums = [0, 1, 2, 3].map(() => new Float64Array(W * (height + 1)));
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const j = (y + 1) * W + x + 1;
      const free = mask[i] ? 0 : 1;
      for (let k = 0; k < 4; k++) {
        const v = k < 3 ? free * src[i * 3 + k]! : free;
        sums[k]![j] = v + sums[k]![j - 1]! + sums[k]![j - W]! - sums[k]![j - W - 1]!;
      }
    }
  const out = new Float32Array(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const [x0, y0, x1, y1] = [
        Math.max(0, x - r),
        Math.max(0, y - r),
        Math.min(width, x + r + 1),
        Math.min(height, y + r + 1),
      ];
      const box = (k: number) =>
        sums[k]![y1 * W + x1]! - sums[k]![y0 * W + x1]! - sums[k]![y1 * W + x0]! + sums[k]![y0 * W + x0]!;
      const count = box(3);
      for (let k = 0; k < 3; k++)
        out[i * 3 + k] = fallback
          ? count >= 4
            ? box(k) / count
            : fallback[i * 3 + k]!
          : count
            ? box(k) / count
            : src[i * 3 + k]!;
    }
  return out;
}

/**
 * A translucent mark found by its edges (translucent.ts) holds, besides its glyphs, pixels the
 * closing took in that the ink never covered (the counter of a "P", a shadow beside a stroke):
 * un-blended, they came out as pale blotches, and its inpainted edge band as smudges over skin.
 * So each pixel of the mark and its rim takes the opacity (none, half the mark's: the
 * anti-aliased edge, or the mark's) whose un-blended colour is nearest the photo around the
 * mark (learned from the pixels clear of it), then the choice is smoothed (3×3 majority), so
 * the photo's own texture is scaled, never replaced by a blur.
 */
async function unblendSoft(
  out: Buffer,
  src: Buffer,
  width: number,
  height: number,
  mask: Uint8Array,
  point: InkPoint,
): Promise<Buffer> {
  const n = width * height;
  const { ink } = point;
  const region = growMask(mask, width, height, UNBLEND_RIM);
  const around = localMean(src, growMask(mask, width, height, 1), width, height, AROUND_RADIUS);
  // The opacity from the whole of the mark's inside, not its edges (which anti-aliasing and
  // JPEG soften: the edge ratio reads a 0.35 mark as 0.28): the median of each inner pixel's
  // distance to the ink over the photo's around it is 1 − a.
  const depth = insideDistance(mask, width, height);
  const ratios: number[] = [];
  for (let i = 0; i < n; i++) {
    if (depth[i]! < 2) continue;
    let di = 0;
    let db = 0;
    for (let k = 0; k < 3; k++) {
      di += (src[i * 3 + k]! - ink[k]!) ** 2;
      db += (around[i * 3 + k]! - ink[k]!) ** 2;
    }
    // Only the inked pixels: the mask holds some the ink never covered (ratio about 1).
    const r = Math.sqrt(di / Math.max(1, db));
    if (db >= MIN_REFIT_DISTANCE ** 2 && Math.abs(r - (1 - point.alpha)) < Math.abs(r - 1)) ratios.push(r);
  }
  ratios.sort((a, b) => a - b);
  const refit = ratios.length >= MIN_REFIT_PIXELS ? 1 - ratios[Math.floor(ratios.length / 2)]! : point.alpha;
  const alpha = Math.min(point.alpha + REFIT_RANGE[1], Math.max(point.alpha - REFIT_RANGE[0], refit));
  const levels = [0, alpha / 2, alpha];
  const pick = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (!region[i]) continue;
    let best = Infinity;
    for (let l = 0; l < levels.length; l++) {
      const a = levels[l]!;
      let e = 0;
      for (let k = 0; k < 3; k++) {
        const c = (src[i * 3 + k]! - a * ink[k]!) / (1 - a);
        // Past the colour cube: a photo pixel the ink never covered (skin turned orange).
        e += c > 255 + MAX_CLIP || c < -MAX_CLIP ? Infinity : (c - around[i * 3 + k]!) ** 2;
      }
      if (e < best) [best, pick[i]] = [e, l];
    }
  }
  for (let i = 0; i < n; i++) {
    if (!region[i]) continue;
    const x = i % width;
    const votes = [0, 0, 0];
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++) {
        const q = i + dy * width + dx;
        if (x + dx < 0 || x + dx >= width || q < 0 || q >= n || !region[q]) continue;
        votes[pick[q]!]!++;
      }
    // The middle opacity stands for both of its neighbours in the vote: an edge is a ramp.
    const l =
      votes[2]! + votes[1]! / 2 > votes[0]! + votes[1]! / 2
        ? 2
        : votes[1]! > Math.max(votes[0]!, votes[2]!)
          ? 1
          : 0;
    const a = levels[pick[i] === 1 && l !== 1 ? 1 : l]!;
    if (!a) continue;
    for (let k = 0; k < 3; k++)
      out[i * 3 + k] = Math.min(255, Math.max(0, Math.round((src[i * 3 + k]! - a * ink[k]!) / (1 - a))));
  }
  return out;
}

/** The rim (px) around a projected mark where the opacity is judged per pixel. */
const PROJECT_RIM = 2;
/**
 * The work is done on the mark's box grown by this (px, a multiple of background.ts's 1/4
 * scale, past the reach of its widest step): a credit is a few hundred pixels across, the
 * photo can be millions (the whole-photo estimates took 4 s at 2 MP for a 5,500 px line).
 */
const PROJECT_MARGIN = 96;

/**
 * A translucent line found by its edges (inked.ts, edgeInk): its glyph pixels are un-blended at
 * the ink's opacity; around them (PROJECT_RIM px: anti-aliasing, pixels the fit missed) each
 * pixel takes the opacity along the ink that best explains its offset from the photo beside it
 * (the mean of the pixels clear of the mark within AROUND_RADIUS; farther in, the normalized
 * convolution of background.ts), clamped to 0..a. Un-blending multiplies JPEG's ringing along
 * the glyphs' edges by 1/(1 − a), which drew their outlines back: the band is then smoothed
 * by a 3×3 median. Computed on the mark's box (PROJECT_MARGIN), not the whole photo.
 */
async function unblendProjected(
  out: Buffer,
  src: Buffer,
  width: number,
  height: number,
  mask: Uint8Array,
  point: InkPoint,
): Promise<Buffer> {
  const box = maskBox(mask, width);
  if (!box) return out;
  const [x0, y0, x1, y1] = box;
  // Aligned to the 1/4-scale grid of background.ts, so the box sees the cells the photo does.
  const left = Math.max(0, Math.floor((x0 - PROJECT_MARGIN) / 4) * 4);
  const top = Math.max(0, Math.floor((y0 - PROJECT_MARGIN) / 4) * 4);
  const right = Math.min(width, left + Math.ceil((x1 + 1 + PROJECT_MARGIN - left) / 4) * 4);
  const bottom = Math.min(height, top + Math.ceil((y1 + 1 + PROJECT_MARGIN - top) / 4) * 4);
  const [w, h] = [right - left, bottom - top];
  const boxOut = Buffer.alloc(w * h * 3);
  const boxSrc = Buffer.alloc(w * h * 3);
  const boxMask = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const from = (top + y) * width + left;
    out.copy(boxOut, y * w * 3, from * 3, (from + w) * 3);
    src.copy(boxSrc, y * w * 3, from * 3, (from + w) * 3);
    boxMask.set(mask.subarray(from, from + w), y * w);
  }
  await unblendProjectedBox(boxOut, boxSrc, w, h, boxMask, point);
  for (let y = 0; y < h; y++) boxOut.copy(out, ((top + y) * width + left) * 3, y * w * 3, (y + 1) * w * 3);
  return out;
}

/** unblendProjected on one box (its pixels outside the mark's band are left as they are). */
async function unblendProjectedBox(
  out: Buffer,
  src: Buffer,
  width: number,
  height: number,
  mask: Uint8Array,
  point: InkPoint,
): Promise<void> {
  const n = width * height;
  const { ink, alpha } = point;
  const band = growMask(mask, width, height, PROJECT_RIM);
  const far = await backgroundBehind(src, band, width, height);
  const around = localMean(src, band, width, height, AROUND_RADIUS, Float32Array.from(far));
  const un = Buffer.from(out);
  for (let i = 0; i < n; i++) {
    if (!band[i]) continue;
    let a = alpha;
    if (!mask[i]) {
      let num = 0;
      let den = 0;
      for (let k = 0; k < 3; k++) {
        const d = ink[k]! - around[i * 3 + k]!;
        num += (src[i * 3 + k]! - around[i * 3 + k]!) * d;
        den += d * d;
      }
      a = den > 0 ? Math.min(alpha, Math.max(0, num / den)) : 0;
    }
    for (let k = 0; k < 3; k++)
      un[i * 3 + k] = Math.min(255, Math.max(0, Math.round((src[i * 3 + k]! - a * ink[k]!) / (1 - a))));
  }
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!band[i]) continue;
    const x = i % width;
    for (let k = 0; k < 3; k++) {
      values.length = 0;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const q = i + dy * width + dx;
          if (x + dx < 0 || x + dx >= width || q < 0 || q >= n) continue;
          values.push(un[q * 3 + k]!);
        }
      values.sort((p, q) => p - q);
      out[i * 3 + k] = values[values.length >> 1]!;
    }
  }
}

/** The opacity refit from a mark's inside (unblendSoft): from pixels whose photo is this far from the ink... */
const MIN_REFIT_DISTANCE = 30;
/** ...at least this many, within this much of the edges' estimate (below, above). */
const MIN_REFIT_PIXELS = 100;
const REFIT_RANGE = [0.08, 0.12] as const;

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
    if (dark) inked = { inpaint: new Uint8Array(width * height), unblend: [{ ...dark, soft: true }] };
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
      if (mark.project || mark.soft) {
        // Letters found apart from the photo around them (project), or a translucent mark's lines (soft).
        const unblend = mark.project ? unblendProjected : unblendSoft;
        out = await unblend(
          out === data ? Buffer.from(data) : out,
          data,
          width,
          height,
          mark.mask,
          mark.point,
        );
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
