import type { Metadata } from "next";
import { connection } from "next/server";
import { getFormatter, getTranslations, setRequestLocale } from "next-intl/server";
import { EFFECT_CREDITS } from "@/core/catalogue-constants";
import { checkoutModeOf } from "@/adapters/payments/test-checkout";
import { getEnv } from "@/config/env";
import { getPricing } from "@/config/pricing";
import type { Locale } from "@/i18n/locales";
import { pageMetadata } from "@/i18n/seo";
import { BuyButton } from "@/ui/pricing/BuyButton";

export async function generateMetadata({
  params,
}: {
  params: Promise<{ locale: Locale }>;
}): Promise<Metadata> {
  const { locale } = await params;
  const t = await getTranslations({ locale, namespace: "pricing" });
  return pageMetadata({
    locale,
    path: "/pricing",
    title: `${t("title")} | photofx`,
    description: t("subtitle", { credits: EFFECT_CREDITS }),
  });
}

/**
 * Packs and plans with their configured prices. With the test checkout (TEST_CHECKOUT=true,
 * no Stripe) the page says no real payment is taken; with neither, it says purchases are not
 * set up here and offers no buy buttons.
 */
export default async function PricingPage({ params }: { params: Promise<{ locale: Locale }> }) {
  const { locale } = await params;
  setRequestLocale(locale);
  await connection(); // prices and the payment mode come from the configuration at run time
  const env = getEnv();
  const pricing = getPricing();
  const mode = checkoutModeOf(env);
  const subscriberCap = env.SUBSCRIBER_UPLOAD_CAP;
  const signupCredits = env.SIGNUP_CREDITS;
  const t = await getTranslations("pricing");
  const format = await getFormatter();
  const money = (cents: number) =>
    format.number(cents / 100, { style: "currency", currency: pricing.currency });
  const card = "flex flex-col rounded-2xl border border-zinc-200 p-6 shadow-sm dark:border-zinc-800";
  return (
    <main className="mx-auto max-w-5xl px-4 py-10">
      <h1 className="text-3xl font-bold">{t("title")}</h1>
      <p className="mt-2 text-zinc-600 dark:text-zinc-400">{t("subtitle", { credits: EFFECT_CREDITS })}</p>
      {mode === "test" ? (
        <p
          className="mt-6 rounded-xl border border-amber-300 bg-amber-50 p-4 text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
          data-testid="test-mode"
        >
          {t("testMode")}
        </p>
      ) : mode === "none" ? (
        <p
          className="mt-6 rounded-xl border border-zinc-300 bg-zinc-50 p-4 text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200"
          data-testid="purchases-unavailable"
        >
          {t("unavailable")}
        </p>
      ) : null}

      <h2 className="mt-10 text-2xl font-semibold" id="plans">
        {t("plansTitle")}
      </h2>
      <div className="mt-4 grid gap-4 md:grid-cols-3">
        <div className={card}>
          <h3 className="text-lg font-semibold">{t("freeTitle")}</h3>
          <ul className="mt-3 flex-1 space-y-1 text-sm text-zinc-700 dark:text-zinc-300">
            <li>{t("freeCredits", { credits: signupCredits })}</li>
            <li>{t("freeCap")}</li>
          </ul>
        </div>
        {pricing.plans.map((plan) => (
          <div key={plan.id} className={`${card} border-violet-400 dark:border-violet-700`}>
            <h3 className="text-lg font-semibold">{plan.name}</h3>
            <p className="mt-1 text-2xl font-bold">{t("perMonth", { price: money(plan.priceCents) })}</p>
            <ul className="mt-3 flex-1 space-y-1 text-sm text-zinc-700 dark:text-zinc-300">
              <li>{t("planCredits", { credits: plan.monthlyCredits })}</li>
              <li>{t("planCap", { cap: plan.uploadCap ?? subscriberCap })}</li>
              <li>{t("planNoCheck")}</li>
            </ul>
            {mode === "none" ? null : (
              <div className="mt-4">
                <BuyButton productId={plan.id} label={t("subscribe")} />
              </div>
            )}
          </div>
        ))}
      </div>

      <h2 className="mt-10 text-2xl font-semibold">{t("packsTitle")}</h2>
      <div className="mt-4 grid gap-4 md:grid-cols-3">
        {pricing.packs.map((pack) => (
          <div key={pack.id} className={card}>
            <h3 className="text-lg font-semibold">{pack.name}</h3>
            <p className="mt-1 text-2xl font-bold">{money(pack.priceCents)}</p>
            <p className="mt-2 flex-1 text-sm text-zinc-700 dark:text-zinc-300">
              {t("packCredits", { credits: pack.credits })}
            </p>
            {mode === "none" ? null : (
              <div className="mt-4">
                <BuyButton productId={pack.id} label={t("buy")} />
              </div>
            )}
          </div>
        ))}
      </div>
    </main>
  );
}
