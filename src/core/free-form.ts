/**
 * Free-form generation (the spec's generic generate call without an `imageType`): an
 * instruction edit of the caller's photos, or text-to-image with none, on the configured AI
 * backend's general model. The engine renders them under two reserved effect ids, which no
 * catalogue effect may take; the local engine supports neither, so a server with only the
 * local engine refuses them before any charge. Browser-safe and dependency-free: the engine
 * (prompts, rules) and the API's OpenAPI document import it too.
 */

/** Engine id of a free-form edit of one or more photos. */
export const FREE_FORM_EDIT_ID = "free-form";
/** Engine id of text-to-image (no photo). */
export const TEXT_TO_IMAGE_ID = "text-to-image";
export const FREE_FORM_IDS: readonly string[] = [FREE_FORM_EDIT_ID, TEXT_TO_IMAGE_ID];
export const isFreeForm = (effectId: string): boolean => FREE_FORM_IDS.includes(effectId);
/** What the ledger and the history call such a task. */
export const FREE_FORM_TITLE: Record<string, string> = {
  [FREE_FORM_EDIT_ID]: "Free-form edit",
  [TEXT_TO_IMAGE_ID]: "Text to image",
};

/** Longest free-form instruction (a description, not an essay; hosted models cap theirs). */
export const FREE_FORM_PROMPT_MAX = 2000;
/** Most images one generate call makes (num_images x batchSize), each charged on its own. */
export const MAX_OUTPUTS_PER_REQUEST = 4;

/** Output shapes the general models (Nano Banana on fal and Gemini) accept. */
export const GENERATE_ASPECT_RATIOS = [
  "21:9",
  "16:9",
  "3:2",
  "4:3",
  "5:4",
  "1:1",
  "4:5",
  "3:4",
  "2:3",
  "9:16",
] as const;
export type GenerateAspectRatio = (typeof GENERATE_ASPECT_RATIOS)[number];

/**
 * The general models a caller may choose (`model`): each names the tier the configured
 * backend renders with (its v1 or v2 model: `FAL_MODEL_V1`/`_V2`, `GEMINI_MODEL_V1`/`_V2`…).
 * Omitted: the tier of the route called (v2 routes: "nano-banana-2").
 */
export const GENERAL_MODELS = {
  "nano-banana": "v1",
  "nano-banana-2": "v2",
} as const satisfies Record<string, "v1" | "v2">;
export type GeneralModel = keyof typeof GENERAL_MODELS;

/**
 * `dimension`: an aspect ratio ("16:9") or a size ("1024x768", "1024*768"), read as the
 * ratio nearest among {@link GENERATE_ASPECT_RATIOS} (the general models choose the pixel
 * size themselves). "auto" or empty: the input photo's shape (square for text-to-image).
 * Returns null for anything else.
 */
export function parseDimension(raw: string | undefined): GenerateAspectRatio | "auto" | null {
  const v = (raw ?? "").trim().toLowerCase();
  if (v === "" || v === "auto") return "auto";
  const m = /^(\d{1,5})\s*(?::|x|\*|×)\s*(\d{1,5})$/.exec(v);
  if (!m) return null;
  const w = Number(m[1]);
  const h = Number(m[2]);
  if (!w || !h || w / h > 8 || h / w > 8) return null;
  let best: GenerateAspectRatio = "1:1";
  let bestDistance = Infinity;
  for (const r of GENERATE_ASPECT_RATIOS) {
    const [a, b] = r.split(":").map(Number) as [number, number];
    const d = Math.abs(Math.log(w / h) - Math.log(a / b));
    if (d < bestDistance) {
      best = r;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Words that ask for a sexualised or nude image. Free-form instructions naming them are
 * refused before any charge, whatever the photo (the same line the effects hold: NSFW
 * inputs refused, outputs screened, no sexualised edits). Matched on whole words, after
 * lower-casing and folding accents; the hosted models' own filters and our output screen
 * stay behind it.
 */
const SEXUAL_TERMS = [
  "nude",
  "nudes",
  "nudity",
  "naked",
  "topless",
  "bottomless",
  "undress",
  "undressed",
  "undressing",
  "unclothed",
  "striptease",
  "lingerie",
  "underwear",
  "bikini",
  "sexy",
  "sexual",
  "sexualized",
  "sexualised",
  "seductive",
  "erotic",
  "erotica",
  "porn",
  "porno",
  "pornographic",
  "nsfw",
  "hentai",
  "breasts",
  "boob",
  "boobs",
  "tits",
  "nipple",
  "nipples",
  "cleavage",
  "genitals",
  "penis",
  "vagina",
  "buttocks",
  "fetish",
  "bdsm",
  "lewd",
  "xxx",
  // A few other languages' commonest words for the same.
  "nackt",
  "desnudo",
  "desnuda",
  "nue",
  "nuda",
  "裸",
  "裸体",
  "裸體",
  "色情",
  "ヌード",
  "누드",
  "khỏa thân",
];
const FOLD = (s: string): string => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
const LATIN_TERMS = new Set(SEXUAL_TERMS.filter((t) => /^[a-z ]+$/.test(FOLD(t))).map(FOLD));
const OTHER_TERMS = SEXUAL_TERMS.filter((t) => !/^[a-z ]+$/.test(FOLD(t))).map(FOLD);

/** Whether a free-form instruction asks for nudity or a sexualised image. */
export function asksForSexualContent(prompt: string): boolean {
  const folded = FOLD(prompt);
  const words = folded.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  for (let i = 0; i < words.length; i++) {
    if (LATIN_TERMS.has(words[i]!)) return true;
    if (i + 1 < words.length && LATIN_TERMS.has(`${words[i]} ${words[i + 1]}`)) return true;
  }
  return OTHER_TERMS.some((t) => folded.includes(t));
}

/**
 * The generic generate call's routes, as stored in `task.route`, and the model tier each
 * renders with when the caller names no `model` (a chosen model is stored as a suffix:
 * "create-v2:v1"). "v1" and "v2" are the nano-banana pair's own.
 */
export const GENERATE_ROUTES = {
  create: "v1",
  "create-v2": "v2",
  "flux-kontext-v2": "v2",
  "flux-kontext-dev-v2": "v1",
} as const satisfies Record<string, "v1" | "v2">;
export type GenerateRoute = keyof typeof GENERATE_ROUTES;

/** The model tier a task renders with, from its stored route. */
export function routeTier(route: string): "v1" | "v2" {
  const [name, chosen] = route.split(":");
  if (chosen === "v1" || chosen === "v2") return chosen;
  if (name === "v2") return "v2";
  return (GENERATE_ROUTES as Record<string, "v1" | "v2">)[name ?? ""] ?? "v1";
}
