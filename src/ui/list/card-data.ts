import { EFFECTS, type EffectCategory } from "@/core/catalogue";
import { getEffectCopy } from "@/i18n/effect-copy";
import type { Locale } from "@/i18n/locales";
import { realExamples } from "@/ui/effect/examples";
import type { CardEffect } from "./EffectCard";

/** A card plus what the list page filters on: its category and translated description. */
export interface ListEffect extends CardEffect {
  category: EffectCategory;
  description: string;
}

/** Every effect of the catalogue, in catalogue order, titled and described in the locale. */
export async function listEffects(locale: Locale): Promise<ListEffect[]> {
  return Promise.all(
    EFFECTS.map(async (e) => {
      const copy = await getEffectCopy(locale, e.id);
      const pair = realExamples(e)[0];
      return {
        id: e.id,
        href: e.href,
        title: copy?.title ?? e.title,
        description: copy?.description ?? "",
        category: e.category,
        ...(e.isHot ? { isHot: true } : {}),
        ...(e.isNew ? { isNew: true } : {}),
        ...(pair ? { before: pair.before, after: pair.after } : {}),
      };
    }),
  );
}

/** Hot and new effects first (hot before new), the rest in catalogue order. */
export function featuredFirst<T extends CardEffect>(effects: readonly T[]): T[] {
  const rank = (e: T) => (e.isHot ? 0 : e.isNew ? 1 : 2);
  return effects
    .map((e, i) => ({ e, i }))
    .sort((a, b) => rank(a.e) - rank(b.e) || a.i - b.i)
    .map(({ e }) => e);
}
