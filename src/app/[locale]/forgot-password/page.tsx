import { connection } from "next/server";
import { getTranslations, setRequestLocale } from "next-intl/server";
import { getEnv } from "@/config/env";
import type { Locale } from "@/i18n/locales";
import { ForgotPasswordForm } from "@/ui/auth/ForgotPasswordForm";
import { ClientMessages } from "@/ui/layout/ClientMessages";

export default async function ForgotPasswordPage({ params }: { params: Promise<{ locale: Locale }> }) {
  const { locale } = await params;
  setRequestLocale(locale);
  await connection(); // the mail configuration is read per request
  const env = getEnv();
  const t = await getTranslations("auth");
  return (
    <ClientMessages scope="auth">
      <main className="px-4 py-12">
        <h1 className="text-center text-3xl font-bold">{t("forgotTitle")}</h1>
        <ForgotPasswordForm outboxOnly={!env.SMTP_URL} supportEmail={env.SUPPORT_EMAIL} />
      </main>
    </ClientMessages>
  );
}
