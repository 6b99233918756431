/**
 * Ghosts of an un-blended overlay. Un-blending, C = (I − a·255) / (1 − a), is exact only for
 * the right opacity, and its error grows as 1 / (1 − a)²: a near-opaque light-grey handle read
 * at a white overlay's opacity comes out as dark letters, still readable (`watermark-8`, whose
 * handle is also drawn with a drop shadow). So thin strokes blended near-opaquely are
 * inpainted instead, with their rims, the shadow drawn beside them (pixels next to them
 * clearly darker than the photo behind them) and the bits of the same ink the overlay finder
 * missed (an outer arc of "@", the dots of "i", full stops).
 */
import { components } from "../../shared/components";
import { backgroundBehind } from "./background";
import { growMask } from "./morphology";
import { insideDistance } from "./strokes";

/**
 * Un-blending's error per hundredth of error in the opacity is (255 − C) / (100·(1 − a)²):
 * from 0.75 that is 16 % or more of the gap to white per hundredth, and JPEG noise is
 * multiplied by 1 / (1 − a) ≥ 4. A thin stroke loses no texture worth keeping by being
 * inpainted instead. (`watermark-1`'s tiled text, un-blended at 0.70 for +11 dB, stays below.)
 */
const HIGH_ALPHA = 0.75;
/** A thin stroke: no pixel deeper than this (px from its edge). */
const THIN = 4;
/** Pieces smaller than this are specks, not strokes. */
const MIN_PIECE = 15;
/** Missed bits of the ink: this near a ghost, this close to its median luminance and this neutral. */
const INK_REACH = 10;
const INK_SLACK = 30;
const INK_TINT = 40;
/** Around a ghost: the rim inpainted with it, and how far a drop shadow is looked for. */
const RIM = 2;
const SHADOW_REACH = 4;
/** A shadow pixel: darker than the photo behind it by at least this (levels). */
const SHADOW_DROP = 25;

const luma = (rgb: Buffer, i: number) =>
  0.299 * rgb[i * 3]! + 0.587 * rgb[i * 3 + 1]! + 0.114 * rgb[i * 3 + 2]!;

/**
 * The pixels to inpaint (near-opaque thin strokes, their rims, shadows and missed bits), or
 * null when there are none. `alpha` is the opacity un-blended per pixel (0: untouched).
 */
export async function ghostGlyphs(
  input: Buffer,
  alpha: Float32Array,
  width: number,
  height: number,
): Promise<Uint8Array | null> {
  const n = width * height;
  // Nothing near-opaque: nothing to do (the common case, kept cheap).
  let high = false;
  for (let i = 0; i < n && !high; i++) if (alpha[i]! >= HIGH_ALPHA) high = true;
  if (!high) return null;
  const changed = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (alpha[i]! > 0) changed[i] = 1;
  const { labels, count } = components(changed, width, height);
  const size = new Uint32Array(count + 1);
  const strokeAlpha = new Float32Array(count + 1); // the stroke's opacity (its rims carry less)
  const deepest = new Uint16Array(count + 1);
  const depth = insideDistance(changed, width, height);
  for (let i = 0; i < n; i++) {
    const l = labels[i]!;
    if (!l) continue;
    size[l]!++;
    strokeAlpha[l] = Math.max(strokeAlpha[l]!, alpha[i]!);
    deepest[l] = Math.max(deepest[l]!, depth[i]!);
  }
  const ghost = new Uint8Array(n);
  const inkLevels: number[] = [];
  for (let i = 0; i < n; i++) {
    const l = labels[i]!;
    if (!l || size[l]! < MIN_PIECE || strokeAlpha[l]! < HIGH_ALPHA || deepest[l]! > THIN) continue;
    ghost[i] = 1;
    if (alpha[i]! >= HIGH_ALPHA) inkLevels.push(luma(input, i));
  }
  if (!inkLevels.length) return null;
  // Bits of the same ink the overlay missed: near a ghost, as light as its strokes, as neutral.
  inkLevels.sort((a, b) => a - b);
  const ink = inkLevels[Math.floor(inkLevels.length / 2)]!;
  const around = growMask(ghost, width, height, INK_REACH);
  for (let i = 0; i < n; i++) {
    if (!around[i] || ghost[i]) continue;
    const lo = Math.min(input[i * 3]!, input[i * 3 + 1]!, input[i * 3 + 2]!);
    const hi = Math.max(input[i * 3]!, input[i * 3 + 1]!, input[i * 3 + 2]!);
    if (luma(input, i) >= ink - INK_SLACK && hi - lo <= INK_TINT) ghost[i] = 1;
  }
  // A drop shadow beside the strokes: darker than the photo learned from around them.
  const reach = growMask(ghost, width, height, SHADOW_REACH);
  const behind = await backgroundBehind(input, reach, width, height);
  const out = growMask(ghost, width, height, RIM);
  for (let i = 0; i < n; i++)
    if (reach[i] && !out[i] && luma(input, i) < luma(behind, i) - SHADOW_DROP) out[i] = 1;
  return growMask(out, width, height, 1);
}
