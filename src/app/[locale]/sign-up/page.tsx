import { connection } from "next/server";
import { getTranslations, setRequestLocale } from "next-intl/server";
import { getEnv } from "@/config/env";
import type { Locale } from "@/i18n/locales";
import { AuthForm } from "@/ui/auth/AuthForm";
import { ClientMessages } from "@/ui/layout/ClientMessages";

export default async function SignUpPage({ params }: { params: Promise<{ locale: Locale }> }) {
  const { locale } = await params;
  setRequestLocale(locale);
  await connection(); // the grant is read per request
  const t = await getTranslations("auth");
  return (
    <ClientMessages scope="auth">
      <main className="px-4 py-12">
        <h1 className="text-center text-3xl font-bold">{t("signUpTitle")}</h1>
        <AuthForm mode="signUp" signupCredits={getEnv().SIGNUP_CREDITS} />
      </main>
    </ClientMessages>
  );
}
