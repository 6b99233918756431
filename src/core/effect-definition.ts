import type { z } from "zod";

/**
 * What one effect's module (src/engine/effects/<id>/effect.ts) declares about itself: the
 * browser-safe description the catalogue is built from. Everything the spec fixes (id,
 * imageType, credits, href) is derived from the id by the catalogue, never declared.
 */

/**
 * How an effect consumes uploaded images.
 * - "each": one task (and one charge) per uploaded image.
 * - "together": one task that takes between min and max images at once.
 */
export type InputRule = { mode: "each" } | { mode: "together"; min: number; max: number; describe: string };

/** The list page's categories, in the order its chips show them: every effect is in exactly one. */
export const EFFECT_CATEGORIES = ["people", "restore", "art", "fun"] as const;
export type EffectCategory = (typeof EFFECT_CATEGORIES)[number];

/** Which option controls the form shows (the effect's options schema validates them). */
export type OptionsForm = "none" | "outpaintEdges" | "rightsConfirmed" | "adultConsent";

export interface EffectDefinition {
  /** The spec's id, exactly as on the wire and in URLs; also the effect's folder name. */
  id: string;
  /** Position in the catalogue (the spec's table order): lower comes first. */
  order: number;
  /** English title; localized copy lives in src/i18n/effect-copy/<locale>/<id>.json. */
  title: string;
  tags: string[];
  /** Where the list page files it: people, restore (restore and fix), art (art styles), fun. */
  category: EffectCategory;
  isHot?: boolean;
  isNew?: boolean;
  /** Default: one task per image. */
  input?: InputRule;
  /** Whether the optional mood prompt is offered (and sent as the payload's prompt). */
  acceptsPrompt?: boolean;
  /** zod schema of the payload's `options` object. Default: no options. */
  options?: z.ZodType<Record<string, unknown>>;
  optionsForm?: OptionsForm;
  /**
   * Fixture photos (tests/fixtures/photos) the example gallery and the contact sheet start
   * from: three tasks, each the list of one task's inputs. Empty for an effect that edits a
   * body (`optionsForm: "adultConsent"`): the fixtures are real people who never agreed to
   * such an edit, so its page shows no example of one (see {@link examplesWithheld}).
   */
  exampleInputs: string[][];
}

/**
 * Whether an effect's examples are withheld on purpose: an edit that needs the adult's
 * consent is never advertised on a real person's photo. Its gallery says so instead.
 */
export const examplesWithheld = (d: Pick<EffectDefinition, "optionsForm">): boolean =>
  d.optionsForm === "adultConsent";

/** Identity, typed: keeps each effect.ts checked against EffectDefinition. */
export const defineEffect = (definition: EffectDefinition): EffectDefinition => definition;
