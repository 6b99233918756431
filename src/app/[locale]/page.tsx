import type { Metadata } from "next";
import { connection } from "next/server";
import { getTranslations, setRequestLocale } from "next-intl/server";
import { EFFECT_CATEGORIES, EFFECTS, getEffect, type EffectCategory } from "@/core/catalogue";
import type { Locale } from "@/i18n/locales";
import { pageMetadata } from "@/i18n/seo";
import { realExamples } from "@/ui/effect/examples";
import {
  Categories,
  Featured,
  Hero,
  HowItWorks,
  Showcase,
  TrustBar,
  type ShowcasePair,
} from "@/ui/home/HomeSections";
import { currentSiteFacts } from "@/ui/legal/current-facts";
import { trustClaims } from "@/ui/legal/site-facts";
import { featuredFirst, listEffects } from "@/ui/list/card-data";

export async function generateMetadata({
  params,
}: {
  params: Promise<{ locale: Locale }>;
}): Promise<Metadata> {
  const { locale } = await params;
  const t = await getTranslations({ locale, namespace: "home" });
  return pageMetadata({ locale, path: "/", title: t("metaTitle"), description: t("metaDescription") });
}

/** The hero's pair, then the showcase's: striking results of our engine, one per kind of effect. */
const HERO_EFFECT = "3d-finger";
const SHOWCASE_EFFECTS = ["image-restoration", "stylized-stickers", "gta-style-filter", "pixel-illustration"];

export default async function HomePage({ params }: { params: Promise<{ locale: Locale }> }) {
  const { locale } = await params;
  setRequestLocale(locale);
  await connection(); // the trust claims follow the running configuration
  const facts = currentSiteFacts();
  const tResults = await getTranslations("results");
  const effects = await listEffects(locale);
  const titleOf = (id: string) => effects.find((e) => e.id === id)?.title ?? id;
  const pairOf = (id: string): ShowcasePair | null => {
    const effect = getEffect(id);
    const pair = effect ? realExamples(effect)[0] : undefined;
    return effect && pair
      ? {
          effectId: id,
          href: effect.href,
          title: titleOf(id),
          before: pair.before,
          after: pair.after,
          engine: pair.engine ?? "local",
        }
      : null;
  };
  const featured = featuredFirst(effects).filter((e) => e.isHot || e.isNew);
  const counts = Object.fromEntries(
    EFFECT_CATEGORIES.map((c) => [c, EFFECTS.filter((e) => e.category === c).length]),
  ) as Record<EffectCategory, number>;
  return (
    <main className="mx-auto max-w-7xl px-4 pb-10">
      <Hero pair={pairOf(HERO_EFFECT)} signupCredits={facts.signupCredits} />
      <TrustBar claims={trustClaims(facts)} signupCredits={facts.signupCredits} />
      <Featured effects={featured} total={EFFECTS.length} />
      <HowItWorks />
      <Showcase
        pairs={SHOWCASE_EFFECTS.map(pairOf).filter((p): p is ShowcasePair => p !== null)}
        localEngineName={tResults("engineLocal")}
      />
      <Categories counts={counts} />
    </main>
  );
}
