import { colourSpread, MONOCHROME_SPREAD } from "./pixel-art";

/**
 * Old prints for the pixel effects (pixel illustration, 16-bit character): telling a b/w or
 * toned print from a colour photo, the ramp such a print is drawn with, and the hue its faces
 * are hand-coloured in. Shared so both effects judge a print alike.
 */

/**
 * The hue (OKLab a, b) a b/w or toned print's faces are drawn in: a warm peach, as a
 * hand-colourist tinted faces on such prints (the print's lightness gives the skin's tone).
 */
export const PRINT_SKIN_HUE: readonly [number, number] = [0.034, 0.05];

/** Steps of a print's ramp, and the lightness it spans (the pixel illustration's). */
export const PRINT_STEPS = 9;
export const PRINT_L: readonly [number, number] = [0.17, 0.95];

/** A print whose mean tint is stronger than this (OKLab chroma, towards yellow) is sepia or brown-toned. */
export const WARM_PRINT_TINT = 0.025;
/**
 * A photo whose colours stray less than this from its tint's hue line (OKLab) is a toned
 * print however strong the toning (chroma rising with lightness spreads a strong sepia's
 * colours along that line, not across it). The fixtures' prints stray 0.005 at most; the
 * least varied colour photos (a face filling the frame, a grey raccoon) 0.0095.
 */
export const PRINT_HUE_SPREAD = 0.0065;
/** A tint weaker than this (OKLab chroma of the mean) gives no hue line to measure along. */
const MIN_TONE_TINT = 0.015;

/**
 * How far colours (OKLab) stray across the line of the tint's hue (root mean square); without a
 * clear tint there is no such line (a grey print is found by its chroma spread alone).
 */
export function offTintSpread(lab: Float32Array, n: number, tintA: number, tintB: number): number {
  const c = Math.hypot(tintA, tintB);
  if (c < MIN_TONE_TINT) return Infinity;
  const ua = tintA / c;
  const ub = tintB / c;
  let v = 0;
  for (let i = 0; i < n; i++) v += (lab[i * 3 + 2]! * ua - lab[i * 3 + 1]! * ub) ** 2;
  return Math.sqrt(v / n);
}

/**
 * Whether colours (OKLab, n x 3) are a b/w or toned print's: their chroma spread under
 * `MONOCHROME_SPREAD`, or all on the line of one tint's hue (a strong sepia). Null for a colour
 * photo; else whether the print is warm (sepia or brown-toned) or neutral.
 */
export function printTone(lab: Float32Array, n: number): { warm: boolean } | null {
  const { spread, tintA, tintB } = colourSpread(lab, n);
  const tint = Math.hypot(tintA, tintB);
  if (spread >= MONOCHROME_SPREAD && offTintSpread(lab, n, tintA, tintB) >= PRINT_HUE_SPREAD) return null;
  return { warm: tint > WARM_PRINT_TINT && tintB > 0 };
}

/**
 * A b/w or toned print's ramp (OKLab, steps x 3), dark to light, the way pixel artists shade:
 * every step clearly apart in lightness, the hue shifting along it. A sepia or brown print gets
 * a warm one (plum-brown shadows, brown mids, cream lights); a neutral b/w print a duotone of
 * navy shadows and warm paper lights. `steps` and `range` (lightness) default to the pixel
 * illustration's.
 */
export function printRampColours(
  warm: boolean,
  steps: number = PRINT_STEPS,
  range: readonly [number, number] = PRINT_L,
): Float32Array {
  const out = new Float32Array(steps * 3);
  for (let s = 0; s < steps; s++) {
    const t = s / (steps - 1);
    const L = range[0] + (range[1] - range[0]) * t;
    // chroma peaks in the mid-tones and fades to the paper white
    const c = Math.sin(Math.PI * Math.min(1, t * 1.15));
    const [a, b] = warm ? [0.03 - 0.022 * t, 0.008 + 0.05 * t] : [0.004 - 0.008 * t, -0.045 + 0.06 * t];
    out[s * 3] = L;
    out[s * 3 + 1] = a * (0.35 + 0.65 * c);
    out[s * 3 + 2] = b * (0.35 + 0.65 * c);
  }
  return out;
}
