import { connection } from "next/server";
import { getTranslations, setRequestLocale } from "next-intl/server";
import { getPricing } from "@/config/pricing";
import type { Locale } from "@/i18n/locales";
import { AccountView } from "@/ui/account/AccountView";
import { effectLabels } from "@/ui/history/effect-titles";
import { productNames } from "../checkout/product-names";
import { ClientMessages } from "@/ui/layout/ClientMessages";

export default async function AccountPage({ params }: { params: Promise<{ locale: Locale }> }) {
  const { locale } = await params;
  setRequestLocale(locale);
  await connection(); // the product names come from the configuration at run time
  const t = await getTranslations("account");
  // The credit history names effects by their page titles and packs as sold, in this language.
  const ledgerNames = {
    effects: Object.fromEntries((await effectLabels(locale)).map((e) => [e.id, e.title])),
    products: await productNames(getPricing()),
  };
  return (
    <ClientMessages scope="account">
      <main className="mx-auto max-w-5xl px-4 py-10">
        <h1 className="text-3xl font-bold">{t("title")}</h1>
        <AccountView ledgerNames={ledgerNames} />
      </main>
    </ClientMessages>
  );
}
