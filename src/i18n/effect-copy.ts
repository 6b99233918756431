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
 * The copy of one effect in a locale. Where the locale has no copy for the effect, the
 * English copy is used with the locale's 4 default FAQ entries (the spec's fallback);
 * `fallback` says so. Returns null for an id the catalogue does not have.
 */
export async function getEffectCopy(
  locale: Locale,
  effectId: string,
): Promise<(EffectCopy & { fallback: boolean }) | null> {
  if (!EFFECTS.some((e) => e.id === effectId)) return null;
  const own = await loadFile(locale);
  const en = (await loadFile("en"))!;
  const copy = own?.effects[effectId];
  if (copy) return { ...copy, fallback: false };
  const english = en.effects[effectId];
  if (!english) return null;
  return { ...english, faq: (own ?? en).defaultFaq, fallback: locale !== "en" };
}
