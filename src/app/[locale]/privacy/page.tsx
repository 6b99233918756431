import type { Metadata } from "next";
import { connection } from "next/server";
import { getTranslations, setRequestLocale } from "next-intl/server";
import type { Locale } from "@/i18n/locales";
import { pageMetadata } from "@/i18n/seo";
import { currentSiteFacts } from "@/ui/legal/current-facts";
import { LegalPage } from "@/ui/legal/LegalPage";
import { PrivacyText } from "@/ui/legal/LegalTexts";
import { operatorLegalText } from "@/ui/legal/operator-text";
import { pageServices } from "@/ui/share/page-services";

export async function generateMetadata({
  params,
}: {
  params: Promise<{ locale: Locale }>;
}): Promise<Metadata> {
  const { locale } = await params;
  const t = await getTranslations({ locale, namespace: "legal.privacy" });
  return pageMetadata({
    locale,
    path: "/privacy",
    title: `${t("title")} | photofx`,
    description: t("metaDescription"),
  });
}

/** The operator's DATA_DIR/legal/privacy[.<locale>].md, or the built-in text. */
export default async function PrivacyPage({ params }: { params: Promise<{ locale: Locale }> }) {
  const { locale } = await params;
  setRequestLocale(locale);
  await connection(); // the configuration and the operator's file are read per request
  const facts = currentSiteFacts();
  const t = await getTranslations("legal.privacy");
  const operatorText = await operatorLegalText(pageServices().env.dataDir, "privacy", locale);
  return (
    <LegalPage title={t("title")} operatorText={operatorText}>
      <PrivacyText facts={facts} />
    </LegalPage>
  );
}
