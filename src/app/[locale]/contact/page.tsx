import type { Metadata } from "next";
import { connection } from "next/server";
import { getTranslations, setRequestLocale } from "next-intl/server";
import type { Locale } from "@/i18n/locales";
import { pageMetadata } from "@/i18n/seo";
import { currentSiteFacts } from "@/ui/legal/current-facts";
import { LegalPage } from "@/ui/legal/LegalPage";
import { ContactText } from "@/ui/legal/LegalTexts";
import { operatorLegalText } from "@/ui/legal/operator-text";
import { pageServices } from "@/ui/share/page-services";

export async function generateMetadata({
  params,
}: {
  params: Promise<{ locale: Locale }>;
}): Promise<Metadata> {
  const { locale } = await params;
  const t = await getTranslations({ locale, namespace: "legal.contact" });
  return pageMetadata({
    locale,
    path: "/contact",
    title: `${t("title")} | photofx`,
    description: t("metaDescription"),
  });
}

/** The support address (SUPPORT_EMAIL), then the operator's DATA_DIR/legal/contact[.<locale>].md or the built-in text. */
export default async function ContactPage({ params }: { params: Promise<{ locale: Locale }> }) {
  const { locale } = await params;
  setRequestLocale(locale);
  await connection(); // the configuration and the operator's file are read per request
  const facts = currentSiteFacts();
  const t = await getTranslations("legal.contact");
  const operatorText = await operatorLegalText(pageServices().env.dataDir, "contact", locale);
  return (
    <LegalPage
      title={t("title")}
      operatorText={operatorText}
      before={
        <p className="mt-6 rounded-2xl border border-zinc-200 p-5 dark:border-zinc-800">
          <span className="block text-sm text-zinc-600 dark:text-zinc-400">{t("emailLabel")}</span>
          <a
            href={`mailto:${facts.supportEmail}`}
            className="text-lg font-semibold text-violet-800 underline underline-offset-2 dark:text-violet-300"
            data-testid="support-email"
          >
            {facts.supportEmail}
          </a>
        </p>
      }
    >
      <ContactText />
    </LegalPage>
  );
}
