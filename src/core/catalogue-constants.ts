/**
 * Catalogue constants the browser needs too. Kept apart from catalogue.ts so client code
 * imports them without pulling in zod and the option schemas.
 */
export const EFFECT_CREDITS = 2;
export const IMAGE_TYPE_PREFIX = "nano-banana-lora-";
export const OUTPAINT_EDGES = ["top", "bottom", "left", "right"] as const;
export type OutpaintEdge = (typeof OUTPAINT_EDGES)[number];
/** Default share of the photo added on each chosen edge. */
export const OUTPAINT_AMOUNT = 0.25;
/**
 * Longest side of an extended picture. Up to it the photo keeps its resolution; past it the
 * photo is scaled so the result fits, and the effect page says so before Create.
 */
export const OUTPAINT_MAX_SIDE = 4096;

/** The extended picture's size for a photo, the edges and amount, and whether it was scaled to fit. */
export function outpaintSize(
  width: number,
  height: number,
  edges: readonly OutpaintEdge[],
  amount = OUTPAINT_AMOUNT,
): { width: number; height: number; photoWidth: number; photoHeight: number; scaled: boolean } {
  const grow = (w: number, h: number) => ({
    width:
      w +
      (edges.includes("left") ? Math.round(w * amount) : 0) +
      (edges.includes("right") ? Math.round(w * amount) : 0),
    height:
      h +
      (edges.includes("top") ? Math.round(h * amount) : 0) +
      (edges.includes("bottom") ? Math.round(h * amount) : 0),
  });
  const full = grow(width, height);
  if (Math.max(full.width, full.height) <= OUTPAINT_MAX_SIDE)
    return { ...full, photoWidth: width, photoHeight: height, scaled: false };
  let fit = OUTPAINT_MAX_SIDE / Math.max(full.width, full.height);
  for (;;) {
    const photoWidth = Math.max(1, Math.floor(width * fit));
    const photoHeight = Math.max(1, Math.floor(height * fit));
    const out = grow(photoWidth, photoHeight);
    if (Math.max(out.width, out.height) <= OUTPAINT_MAX_SIDE)
      return { ...out, photoWidth, photoHeight, scaled: true };
    fit *= 0.999;
  }
}
export const MOOD_PROMPT_MAX = 500;
