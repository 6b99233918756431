import { EFFECTS } from "@/core/catalogue";
import { getEffectCopy } from "@/i18n/effect-copy";
import { LOCALE_TAGS, type Locale } from "@/i18n/locales";

/** An effect as the history names it: its title in the user's language and its page. */
export interface EffectLabel {
  id: string;
  title: string;
  href: string;
}

/** Every catalogue effect with its translated title (the catalogue's copy), sorted by title. */
export async function effectLabels(locale: Locale): Promise<EffectLabel[]> {
  const labels = await Promise.all(
    EFFECTS.map(async (e) => ({
      id: e.id,
      title: (await getEffectCopy(locale, e.id))?.title ?? e.title,
      href: e.href,
    })),
  );
  const collator = new Intl.Collator(LOCALE_TAGS[locale]);
  return labels.sort((a, b) => collator.compare(a.title, b.title));
}
