import { getTranslations, setRequestLocale } from "next-intl/server";
import { EFFECT_CREDITS } from "@/core/catalogue";
import type { Locale } from "@/i18n/locales";

/** Packs and plans arrive with the plans issue; until then the page says so plainly. */
export default async function PricingPage({ params }: { params: Promise<{ locale: Locale }> }) {
  const { locale } = await params;
  setRequestLocale(locale);
  const t = await getTranslations("pricing");
  return (
    <main className="mx-auto max-w-3xl px-4 py-10" id="plans">
      <h1 className="text-3xl font-bold">{t("title")}</h1>
      <p className="mt-2 text-zinc-600 dark:text-zinc-400">{t("subtitle", { credits: EFFECT_CREDITS })}</p>
      <p className="mt-6 rounded-xl border border-amber-300 bg-amber-50 p-4 text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200">
        {t("unavailable")}
      </p>
    </main>
  );
}
