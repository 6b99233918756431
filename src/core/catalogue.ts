import { z } from "zod";

/**
 * The effect catalogue: the one source of truth for the UI, the server and the engine.
 * Ids, flags, credits and hrefs follow the specification's table exactly. Input rules and
 * options are ours (the spec only states them in copy); the server enforces them before
 * any credit is charged.
 */

import { EFFECT_DEFINITIONS } from "@/engine/effects/catalogue";
import { EFFECT_CREDITS, IMAGE_TYPE_PREFIX } from "./catalogue-constants";
import type { EffectCategory, InputRule, OptionsForm } from "./effect-definition";

export * from "./catalogue-constants";
export { EFFECT_CATEGORIES } from "./effect-definition";
export type { EffectCategory, InputRule, OptionsForm } from "./effect-definition";

export interface ExamplePair {
  /** Public path of the "before" image (under /examples). */
  before: string;
  /** Public path of the "after" image. */
  after: string;
  /** Which engine made it (a provider id: "local", "comfyui", ...), shown under the gallery. */
  engine?: string;
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
  /** The list page's category (people, restore, art, fun). */
  category: EffectCategory;
  /** Three before/after slots; filled by `npm run examples`. */
  examples: ExamplePair[];
  input: InputRule;
  /** Whether the optional mood prompt is offered (and sent as the payload's prompt). */
  acceptsPrompt: boolean;
  /** zod schema of the payload's `options` object for this effect. */
  options: z.ZodType<Record<string, unknown>>;
  /** Which option controls the form shows (the schema above validates them). */
  optionsForm: OptionsForm;
  /** Fixture photos the example gallery and the contact sheet start from (operator tooling). */
  exampleInputs: string[][];
}

/** What the browser needs of an effect: serializable, without server-only schemas. */
export type ClientEffect = Omit<Effect, "options" | "exampleInputs">;
export const toClientEffect = ({
  options: _options,
  exampleInputs: _inputs,
  ...rest
}: Effect): ClientEffect => rest;

const noOptions = z.object({}).strict();

/**
 * The catalogue, built from the effect modules (src/engine/effects/<id>/effect.ts, indexed
 * by `npm run effects:index`) in their declared order. The spec's derived fields (imageType,
 * credits, href, example slots) come from the id here, once.
 */
export const EFFECTS: readonly Effect[] = [...EFFECT_DEFINITIONS]
  .sort((a, b) => a.order - b.order || a.id.localeCompare(b.id))
  .map((d) => ({
    id: d.id,
    imageType: `${IMAGE_TYPE_PREFIX}${d.id}`,
    title: d.title,
    credits: EFFECT_CREDITS,
    href: `/nano-banana-lora/${d.id}`,
    ...(d.isHot ? { isHot: true } : {}),
    ...(d.isNew ? { isNew: true } : {}),
    tags: d.tags,
    category: d.category,
    examples: [1, 2, 3].map((n) => ({
      before: `/examples/${d.id}/${n}-before.webp`,
      after: `/examples/${d.id}/${n}-after.webp`,
    })),
    input: d.input ?? { mode: "each" },
    acceptsPrompt: d.acceptsPrompt ?? false,
    options: d.options ?? noOptions,
    optionsForm: d.optionsForm ?? "none",
    exampleInputs: d.exampleInputs,
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
