import { z } from "zod";

/**
 * The effect catalogue: the one source of truth for the UI, the server and the engine.
 * Ids, flags, credits and hrefs follow the specification's table exactly. Input rules and
 * options are ours (the spec only states them in copy); the server enforces them before
 * any credit is charged.
 */

import { EFFECT_CREDITS, IMAGE_TYPE_PREFIX, OUTPAINT_EDGES } from "./catalogue-constants";

export * from "./catalogue-constants";

/**
 * How an effect consumes uploaded images.
 * - "each": one task (and one charge) per uploaded image.
 * - "together": one task that takes between min and max images at once.
 */
export type InputRule = { mode: "each" } | { mode: "together"; min: number; max: number; describe: string };

export interface ExamplePair {
  /** Public path of the "before" image (under /examples). */
  before: string;
  /** Public path of the "after" image. */
  after: string;
}

export interface Effect {
  id: string;
  /** `nano-banana-lora-{id}`: what the submit payload names. */
  imageType: string;
  /** English title; localized copy lives in src/i18n. */
  title: string;
  credits: number;
  href: string;
  isHot?: boolean;
  isNew?: boolean;
  tags: string[];
  /** Three before/after slots; filled by `npm run examples`. */
  examples: ExamplePair[];
  input: InputRule;
  /** Whether the optional mood prompt is offered (and sent as the payload's prompt). */
  acceptsPrompt: boolean;
  /** zod schema of the payload's `options` object for this effect. */
  options: z.ZodType<Record<string, unknown>>;
  /** Which option controls the form shows (the schema above validates them). */
  optionsForm: OptionsForm;
}

export type OptionsForm = "none" | "outpaintEdges" | "rightsConfirmed" | "adultConsent";

/** What the browser needs of an effect: serializable, without server-only schemas. */
export type ClientEffect = Omit<Effect, "options">;
export const toClientEffect = ({ options: _options, ...rest }: Effect): ClientEffect => rest;

const noOptions = z.object({}).strict();

const outpaintOptions = z
  .object({
    edges: z
      .array(z.enum(OUTPAINT_EDGES))
      .min(1, "Choose at least one edge to extend")
      .max(4)
      .refine((e) => new Set(e).size === e.length, "Each edge may be chosen once")
      .default([...OUTPAINT_EDGES]),
    /** Fraction of the original size added on each chosen edge. */
    amount: z.number().min(0.05).max(1).default(0.25),
  })
  .strict();

const rightsOptions = z
  .object({
    rightsConfirmed: z.literal(true, {
      error: "Please confirm that you have the right to edit this image",
    }),
  })
  .strict();

const consentOptions = z
  .object({
    adultConsent: z.literal(true, {
      error: "Please confirm that the person shown is an adult who consented to this edit",
    }),
  })
  .strict();

interface Def {
  id: string;
  title: string;
  tags: string[];
  isHot?: boolean;
  isNew?: boolean;
  input?: InputRule;
  acceptsPrompt?: boolean;
  options?: z.ZodType<Record<string, unknown>>;
  optionsForm?: OptionsForm;
}

const defs: Def[] = [
  { id: "stylized-stickers", title: "Stylized Stickers", tags: ["sticker", "cartoon", "kawaii"] },
  {
    id: "image-restoration",
    title: "Image Restoration",
    tags: ["restore", "colorize", "upscale"],
    isHot: true,
  },
  {
    id: "watermark-remover",
    title: "Watermark Remover",
    tags: ["cleanup", "watermark"],
    isHot: true,
    options: rightsOptions,
    optionsForm: "rightsConfirmed",
  },
  {
    id: "gta-style-filter",
    title: "GTA Style Filter",
    tags: ["game", "poster", "illustration"],
    isHot: true,
  },
  { id: "3d-finger", title: "3D Figure", tags: ["3d", "collectible", "figure"], isHot: true },
  {
    id: "baby-face-generator",
    title: "Baby Face Generator",
    tags: ["people", "fun", "family"],
    input: {
      mode: "together",
      min: 1,
      max: 2,
      describe: "two parent photos, or one couple photo",
    },
  },
  { id: "studio-portrait", title: "Studio Portrait", tags: ["portrait", "studio", "people"] },
  { id: "artistic-portrait", title: "Artistic Portrait", tags: ["portrait", "cinematic", "film"] },
  { id: "coloring-page", title: "Coloring Page", tags: ["kids", "printable", "line art"] },
  { id: "pixel-illustration", title: "Pixel Illustration", tags: ["pixel art", "8-bit", "retro"] },
  { id: "hair-style-generator", title: "Hair Style Generator", tags: ["hair", "people", "grid"] },
  { id: "emoji-icon", title: "Emoji Icon", tags: ["emoji", "icon", "cartoon"] },
  { id: "image-to-line-drawing", title: "Image to Line Drawing", tags: ["line art", "sketch"] },
  {
    id: "linkedIn-profile-photo-generator",
    title: "LinkedIn Profile Photo Generator",
    tags: ["headshot", "business", "portrait"],
  },
  { id: "pixie-cut-filter", title: "Pixie Cut Filter", tags: ["hair", "people"] },
  {
    id: "image-outpainting",
    title: "Image Outpainting",
    tags: ["extend", "expand", "canvas"],
    options: outpaintOptions,
    optionsForm: "outpaintEdges",
  },
  {
    id: "hug-my-younger-self",
    title: "Hug My Younger Self",
    tags: ["people", "nostalgia", "composite"],
    input: {
      mode: "together",
      min: 2,
      max: 2,
      describe: "two photos: one of you now and one from your childhood",
    },
    acceptsPrompt: true,
  },
  { id: "inverted-face-filter", title: "Inverted Face Filter", tags: ["mirror", "fun"] },
  {
    id: "boob-boost-effect",
    title: "Bust Enhancement",
    tags: ["body", "retouch"],
    isNew: true,
    options: consentOptions,
    optionsForm: "adultConsent",
  },
  {
    id: "16-bit-video-game-character",
    title: "16-Bit Video Game Character",
    tags: ["pixel art", "16-bit", "game"],
    isNew: true,
  },
  { id: "3d-caricature", title: "3D Caricature", tags: ["3d", "caricature", "fun"], isNew: true },
  {
    id: "y2k-style-ai",
    title: "Y2K Style AI",
    tags: ["y2k", "fashion", "neon"],
    isNew: true,
    acceptsPrompt: true,
  },
];

export const EFFECTS: readonly Effect[] = defs.map((d) => ({
  id: d.id,
  imageType: `${IMAGE_TYPE_PREFIX}${d.id}`,
  title: d.title,
  credits: EFFECT_CREDITS,
  href: `/nano-banana-lora/${d.id}`,
  ...(d.isHot ? { isHot: true } : {}),
  ...(d.isNew ? { isNew: true } : {}),
  tags: d.tags,
  examples: [1, 2, 3].map((n) => ({
    before: `/examples/${d.id}/${n}-before.webp`,
    after: `/examples/${d.id}/${n}-after.webp`,
  })),
  input: d.input ?? { mode: "each" },
  acceptsPrompt: d.acceptsPrompt ?? false,
  options: d.options ?? noOptions,
  optionsForm: d.optionsForm ?? "none",
}));

const byId = new Map(EFFECTS.map((e) => [e.id, e]));
const byImageType = new Map(EFFECTS.map((e) => [e.imageType, e]));

export const getEffect = (id: string): Effect | undefined => byId.get(id);
export const getEffectByImageType = (imageType: string): Effect | undefined => byImageType.get(imageType);

/**
 * Options for renders the operator runs on fixture photos (examples, contact sheet,
 * benchmarks): the defaults, with the confirmation the effect's form asks of a user given.
 */
export function operatorOptions(effect: Effect): Record<string, unknown> {
  const consent =
    effect.optionsForm === "rightsConfirmed"
      ? { rightsConfirmed: true }
      : effect.optionsForm === "adultConsent"
        ? { adultConsent: true }
        : {};
  return effect.options.parse(consent);
}
