import type { Metadata } from "next";
import { getTranslations, setRequestLocale } from "next-intl/server";
import { EFFECT_CATEGORIES, EFFECT_CREDITS, type EffectCategory } from "@/core/catalogue";
import type { Locale } from "@/i18n/locales";
import { pageMetadata } from "@/i18n/seo";
import { listEffects } from "@/ui/list/card-data";
import { EffectBrowser } from "@/ui/list/EffectBrowser";
import { ClientMessages } from "@/ui/layout/ClientMessages";

export async function generateMetadata({
  params,
}: {
  params: Promise<{ locale: Locale }>;
}): Promise<Metadata> {
  const { locale } = await params;
  const t = await getTranslations({ locale, namespace: "list" });
  return pageMetadata({
    locale,
    path: "/nano-banana-lora",
    title: t("metaTitle"),
    description: t("metaDescription"),
  });
}

/** `?category=people` (a chip's link, or the home page's): anything else shows every effect. */
function categoryOf(raw: string | string[] | undefined): EffectCategory | null {
  const value = Array.isArray(raw) ? raw[0] : raw;
  return (EFFECT_CATEGORIES as readonly string[]).includes(value ?? "") ? (value as EffectCategory) : null;
}

export default async function EffectListPage({
  params,
  searchParams,
}: {
  params: Promise<{ locale: Locale }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { locale } = await params;
  setRequestLocale(locale);
  const t = await getTranslations("list");
  const category = categoryOf((await searchParams).category);
  return (
    <main className="mx-auto max-w-7xl px-4 py-10">
      <h1 className="text-3xl font-bold">{t("title")}</h1>
      <p className="mt-2 text-zinc-600 dark:text-zinc-400">{t("subtitle", { credits: EFFECT_CREDITS })}</p>
      <div className="mt-8">
        <ClientMessages scope="list">
          <EffectBrowser
            key={category ?? "all"}
            effects={await listEffects(locale)}
            initialCategory={category}
          />
        </ClientMessages>
      </div>
    </main>
  );
}
