import { z } from "zod";
import { EFFECTS } from "@/core/catalogue";
import type { Locale } from "./locales";

/** One effect's copy in one locale (spec: title, description, formTitle, formDesc, resultTitle, 4-6 FAQ pairs). */
export const effectCopySchema = z
  .object({
    title: z.string().min(1),
    description: z.string().min(1),
    formTitle: z.string().min(1),
    formDesc: z.string().min(1),
    resultTitle: z.string().min(1),
    faq: z
      .array(z.object({ question: z.string().min(1), answer: z.string().min(1) }).strict())
      .min(4)
      .max(6),
  })
  .strict();
export type EffectCopy = z.infer<typeof effectCopySchema>;

/** A locale's file: copy per effect id (any subset), plus the 4 default FAQ entries. */
export const effectCopyFileSchema = z
  .object({
    defaultFaq: z
      .array(z.object({ question: z.string().min(1), answer: z.string().min(1) }).strict())
      .length(4),
    effects: z.record(z.string(), effectCopySchema),
  })
  .strict();
export type EffectCopyFile = z.infer<typeof effectCopyFileSchema>;

const cache = new Map<string, EffectCopyFile | null>();

async function loadFile(locale: string): Promise<EffectCopyFile | null> {
  if (cache.has(locale)) return cache.get(locale)!;
  let file: EffectCopyFile | null = null;
  try {
    const raw = (await import(`./effect-copy/${locale}.json`)).default;
    file = effectCopyFileSchema.parse(raw);
  } catch (err) {
    if (locale === "en") throw err;
  }
  cache.set(locale, file);
  return file;
}

/**
 * The spec's fallback, on already loaded files: the locale's own copy of the effect, or
 * else the English copy with the locale's 4 default FAQ entries (`fallback: true`).
 */
export function resolveEffectCopy(
  own: EffectCopyFile | null,
  english: EffectCopyFile,
  effectId: string,
): (EffectCopy & { fallback: boolean }) | null {
  const copy = own?.effects[effectId];
  if (copy) return { ...copy, fallback: false };
  const en = english.effects[effectId];
  if (!en) return null;
  return { ...en, faq: (own ?? english).defaultFaq, fallback: own !== english };
}

/** The copy of one catalogue effect in a locale (null for an id the catalogue does not have). */
export async function getEffectCopy(
  locale: Locale,
  effectId: string,
): Promise<(EffectCopy & { fallback: boolean }) | null> {
  if (!EFFECTS.some((e) => e.id === effectId)) return null;
  const english = (await loadFile("en"))!;
  const own = locale === "en" ? english : await loadFile(locale);
  return resolveEffectCopy(own, english, effectId);
}
