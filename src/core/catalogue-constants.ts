/**
 * Catalogue constants the browser needs too. Kept apart from catalogue.ts so client code
 * imports them without pulling in zod and the option schemas.
 */
export const EFFECT_CREDITS = 2;
export const IMAGE_TYPE_PREFIX = "nano-banana-lora-";
export const OUTPAINT_EDGES = ["top", "bottom", "left", "right"] as const;
export type OutpaintEdge = (typeof OUTPAINT_EDGES)[number];
export const MOOD_PROMPT_MAX = 500;
