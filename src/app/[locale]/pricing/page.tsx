import type { Metadata } from "next";
import { connection } from "next/server";
import { getFormatter, getTranslations, setRequestLocale } from "next-intl/server";
import { EFFECTS } from "@/core/catalogue";
import { EFFECT_CREDITS } from "@/core/catalogue-constants";
import { KEEP_ORIGINALS_DAYS } from "@/core/originals";
import { FREE_UPLOAD_CAP } from "@/core/plan-limits";
import { checkoutModeOf } from "@/adapters/payments/test-checkout";
import { getEnv } from "@/config/env";
import { getPricing } from "@/config/pricing";
import { getEffectCopy } from "@/i18n/effect-copy";
import type { Locale } from "@/i18n/locales";
import { pageMetadata } from "@/i18n/seo";
import { BuyButton } from "@/ui/pricing/BuyButton";
import { PlanAction } from "@/ui/pricing/PlanAction";
import { PricingFaq, type PricingFaqItem } from "@/ui/pricing/PricingFaq";
import { bestValuePackId, imagesFor, perImageFormat, pricePerImage } from "@/ui/pricing/value";
import { productNames } from "../checkout/product-names";
import { ClientMessages } from "@/ui/layout/ClientMessages";

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
 * set up here and offers no buy buttons. The signed-in user's current plan is marked and not
 * sold again (PlanAction). Each pack and plan shows what one image comes to (its price over
 * the images its credits pay for); the pack clearly cheapest per image is marked. Below the
 * cards, an FAQ whose answers follow the payment mode.
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
  const names = await productNames(pricing);
  const money = (cents: number) =>
    format.number(cents / 100, { style: "currency", currency: pricing.currency });
  const perImage = (priceCents: number, credits: number) => {
    const value = pricePerImage(priceCents, credits, EFFECT_CREDITS);
    return format.number(value, perImageFormat(value, pricing.currency));
  };
  const bestValue = bestValuePackId(pricing.packs, EFFECT_CREDITS);
  const faq = await faqItems(locale, mode, pricing.plans, subscriberCap, (items) => format.list(items));
  const card = "flex flex-col rounded-2xl border border-zinc-200 p-6 shadow-sm dark:border-zinc-800";
  return (
    <ClientMessages scope="pricing">
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
              <h3 className="text-lg font-semibold">{names[plan.id]}</h3>
              <p className="mt-1 text-2xl font-bold">{t("perMonth", { price: money(plan.priceCents) })}</p>
              <p
                className="mt-1 text-sm text-zinc-600 dark:text-zinc-400"
                data-testid={`per-image-${plan.id}`}
              >
                {t("planPerImage", {
                  price: perImage(plan.priceCents, plan.monthlyCredits),
                  images: imagesFor(plan.monthlyCredits, EFFECT_CREDITS),
                })}
              </p>
              <ul className="mt-3 flex-1 space-y-1 text-sm text-zinc-700 dark:text-zinc-300">
                <li>{t("planCredits", { credits: plan.monthlyCredits })}</li>
                <li>{t("planCap", { cap: plan.uploadCap ?? subscriberCap })}</li>
                <li>{t("planNoCheck")}</li>
              </ul>
              <div className="mt-4">
                <PlanAction planId={plan.id} label={t("subscribe")} canBuy={mode !== "none"} />
              </div>
            </div>
          ))}
        </div>

        <h2 className="mt-10 text-2xl font-semibold">{t("packsTitle")}</h2>
        <div className="mt-4 grid gap-4 md:grid-cols-3">
          {pricing.packs.map((pack) => (
            <div key={pack.id} className={card} data-testid={`pack-${pack.id}`}>
              <div className="flex flex-wrap items-center gap-2">
                <h3 className="text-lg font-semibold">{names[pack.id]}</h3>
                {pack.id === bestValue ? (
                  <span
                    className="rounded-full bg-violet-100 px-2 py-0.5 text-xs font-medium text-violet-900 dark:bg-violet-950 dark:text-violet-200"
                    data-testid="best-value"
                  >
                    {t("bestValue")}
                  </span>
                ) : null}
              </div>
              <p className="mt-1 text-2xl font-bold">{money(pack.priceCents)}</p>
              <p
                className="mt-1 text-sm text-zinc-600 dark:text-zinc-400"
                data-testid={`per-image-${pack.id}`}
              >
                {t("packPerImage", {
                  price: perImage(pack.priceCents, pack.credits),
                  images: imagesFor(pack.credits, EFFECT_CREDITS),
                })}
              </p>
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

        <PricingFaq title={t("faqTitle")} items={faq} />
      </main>
    </ClientMessages>
  );
}

/**
 * The FAQ, true to this server: what an image costs (effects that take their photos together
 * cost one charge per result), credits never expire (nothing in the ledger removes them),
 * failed or refused generations are refunded (task-lifecycle.ts), cancelling a plan (only
 * where plans can be bought; the test checkout's answer says no real payment is taken), what
 * subscribers get, and what happens to photos (originals.ts).
 */
async function faqItems(
  locale: Locale,
  mode: "stripe" | "test" | "none",
  plans: ReadonlyArray<{ uploadCap?: number }>,
  subscriberCap: number,
  list: (items: string[]) => string,
): Promise<PricingFaqItem[]> {
  const t = await getTranslations("pricing.faq");
  const tPrivacy = await getTranslations("privacy");
  const tHistory = await getTranslations("history");
  const together = await Promise.all(
    EFFECTS.filter((e) => e.input.mode === "together").map(
      async (e) => (await getEffectCopy(locale, e.id))?.title ?? e.title,
    ),
  );
  const caps = [...new Set(plans.map((p) => p.uploadCap ?? subscriberCap))];
  const items: PricingFaqItem[] = [
    {
      id: "cost",
      question: t("costQ"),
      answer: [
        t("costA", { credits: EFFECT_CREDITS }),
        ...(together.length
          ? [t("costTogetherA", { effects: list(together), credits: EFFECT_CREDITS })]
          : []),
      ],
    },
    { id: "expire", question: t("expireQ"), answer: [t("expireA")] },
    { id: "refund", question: t("refundQ"), answer: [t("refundA")] },
  ];
  if (plans.length && mode !== "none")
    items.push({
      id: "cancel",
      question: t("cancelQ"),
      answer: [mode === "test" ? t("cancelTestA") : t("cancelA")],
    });
  if (plans.length)
    items.push({
      id: "subscribers",
      question: t("subscribersQ"),
      answer: [
        caps.length === 1
          ? t("subscribersA", { cap: caps[0]!, free: FREE_UPLOAD_CAP })
          : t("subscribersVariedA", { free: FREE_UPLOAD_CAP }),
      ],
    });
  items.push({
    id: "photos",
    question: t("photosQ"),
    answer: [
      t("photosA", {
        keep: tPrivacy("keepOriginalsLabel"),
        days: KEEP_ORIGINALS_DAYS,
        creations: tHistory("title"),
      }),
    ],
  });
  return items;
}
