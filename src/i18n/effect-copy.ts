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

/** The 4 default FAQ entries of a locale (src/i18n/effect-copy/<locale>/_faq.json). */
export const defaultFaqSchema = z
  .array(z.object({ question: z.string().min(1), answer: z.string().min(1) }).strict())
  .length(4);

/**
 * A locale's copy as loaded: the copy of each effect that has a file
 * (src/i18n/effect-copy/<locale>/<effect-id>.json), plus the 4 default FAQ entries.
 */
export interface EffectCopyFile {
  defaultFaq: z.infer<typeof defaultFaqSchema>;
  effects: Record<string, EffectCopy>;
}

const cache = new Map<string, Promise<EffectCopyFile | null>>();

/** One JSON file of a locale's folder, or null when the folder has no such file. */
async function loadJson(locale: string, name: string): Promise<unknown> {
  try {
    return (await import(`./effect-copy/${locale}/${name}.json`)).default;
  } catch {
    return null;
  }
}

async function readLocale(locale: string): Promise<EffectCopyFile | null> {
  const faq = await loadJson(locale, "_faq");
  if (faq === null) {
    if (locale === "en") throw new Error("src/i18n/effect-copy/en/_faq.json is missing");
    return null;
  }
  const effects: Record<string, EffectCopy> = {};
  for (const { id } of EFFECTS) {
    const raw = await loadJson(locale, id);
    if (raw === null) continue;
    const parsed = effectCopySchema.safeParse(raw);
    if (parsed.success) effects[id] = parsed.data;
    else if (locale === "en") throw new Error(`src/i18n/effect-copy/en/${id}.json: ${parsed.error.message}`);
  }
  return { defaultFaq: defaultFaqSchema.parse(faq), effects };
}

function loadFile(locale: string): Promise<EffectCopyFile | null> {
  let file = cache.get(locale);
  if (!file) {
    file = readLocale(locale);
    cache.set(locale, file);
  }
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
