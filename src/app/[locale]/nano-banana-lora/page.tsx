import type { Metadata } from "next";
import { getTranslations, setRequestLocale } from "next-intl/server";
import { EFFECT_CREDITS } from "@/core/catalogue";
import type { Locale } from "@/i18n/locales";
import { pageMetadata } from "@/i18n/seo";
import { EffectGrid } from "@/ui/list/EffectGrid";

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

export default async function EffectListPage({ params }: { params: Promise<{ locale: Locale }> }) {
  const { locale } = await params;
  setRequestLocale(locale);
  const t = await getTranslations("list");
  return (
    <main className="mx-auto max-w-7xl px-4 py-10">
      <h1 className="text-3xl font-bold">{t("title")}</h1>
      <p className="mt-2 text-zinc-600 dark:text-zinc-400">{t("subtitle", { credits: EFFECT_CREDITS })}</p>
      <div className="mt-8">
        <EffectGrid locale={locale} />
      </div>
    </main>
  );
}
