import { EFFECTS } from "@/core/catalogue";
import { getEffectCopy } from "@/i18n/effect-copy";
import type { Locale } from "@/i18n/locales";
import { EffectCard } from "./EffectCard";

/** Every effect of the catalogue, titled in the page's locale. */
export async function EffectGrid({ locale }: { locale: Locale }) {
  const titles = await Promise.all(
    EFFECTS.map(async (e) => (await getEffectCopy(locale, e.id))?.title ?? e.title),
  );
  return (
    <ul className="grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-4 xl:grid-cols-5">
      {EFFECTS.map((e, i) => (
        <li key={e.id}>
          <EffectCard effect={e} title={titles[i]!} priority={i < 5} />
        </li>
      ))}
    </ul>
  );
}
