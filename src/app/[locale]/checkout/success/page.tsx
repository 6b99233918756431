import { getTranslations, setRequestLocale } from "next-intl/server";
import type { Locale } from "@/i18n/locales";
import { CheckoutResult } from "@/ui/pricing/CheckoutResult";
import { ClientMessages } from "@/ui/layout/ClientMessages";

export default async function CheckoutSuccessPage({ params }: { params: Promise<{ locale: Locale }> }) {
  const { locale } = await params;
  setRequestLocale(locale);
  const t = await getTranslations("checkout");
  return (
    <ClientMessages scope="checkout">
      <main className="mx-auto max-w-xl px-4 py-10">
        <h1 className="text-3xl font-bold">{t("successTitle")}</h1>
        <CheckoutResult outcome="success" />
      </main>
    </ClientMessages>
  );
}
