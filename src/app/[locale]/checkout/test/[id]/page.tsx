import { connection } from "next/server";
import { getFormatter, getTranslations, setRequestLocale } from "next-intl/server";
import { checkoutModeOf } from "@/adapters/payments/test-checkout";
import { getEnv } from "@/config/env";
import { getPricing } from "@/config/pricing";
import type { Locale } from "@/i18n/locales";
import { TestCheckout } from "@/ui/pricing/TestCheckout";
import { productNames } from "../../product-names";
import { ClientMessages } from "@/ui/layout/ClientMessages";

export default async function TestCheckoutPage({
  params,
}: {
  params: Promise<{ locale: Locale; id: string }>;
}) {
  const { locale, id } = await params;
  setRequestLocale(locale);
  await connection();
  const pricing = getPricing();
  const t = await getTranslations("checkout");
  const mode = checkoutModeOf(getEnv());
  if (mode !== "test") {
    // The test checkout is off: purchases are not set up (no TEST_CHECKOUT, no Stripe), or
    // Stripe takes them and no test checkout exists.
    const tp = await getTranslations("pricing");
    return (
      <ClientMessages scope="checkout">
        <main className="mx-auto max-w-xl px-4 py-10">
          <h1 className="text-3xl font-bold">{t("testTitle")}</h1>
          <p className="mt-6" data-testid={mode === "none" ? "purchases-unavailable" : "checkout-missing"}>
            {mode === "none" ? tp("unavailable") : t("notFound")}
          </p>
        </main>
      </ClientMessages>
    );
  }
  const format = await getFormatter();
  const tp = await getTranslations("pricing");
  const names = await productNames(pricing);
  const money = (cents: number) =>
    format.number(cents / 100, { style: "currency", currency: pricing.currency });
  // What is being bought, as the pricing page says it: "Starter · 40 credits · $4.99".
  const products = Object.fromEntries([
    ...pricing.packs.map((p) => [
      p.id,
      [names[p.id], tp("packCredits", { credits: p.credits }), money(p.priceCents)].join(" · "),
    ]),
    ...pricing.plans.map((p) => [
      p.id,
      [
        names[p.id],
        tp("planCredits", { credits: p.monthlyCredits }),
        tp("perMonth", { price: money(p.priceCents) }),
      ].join(" · "),
    ]),
  ]);
  return (
    <ClientMessages scope="checkout">
      <main className="mx-auto max-w-xl px-4 py-10">
        <h1 className="text-3xl font-bold">{t("testTitle")}</h1>
        <TestCheckout id={id} products={products} />
      </main>
    </ClientMessages>
  );
}
