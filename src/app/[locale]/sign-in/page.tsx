import { getTranslations, setRequestLocale } from "next-intl/server";
import type { Locale } from "@/i18n/locales";
import { AuthForm } from "@/ui/auth/AuthForm";
import { ClientMessages } from "@/ui/layout/ClientMessages";

export default async function SignInPage({ params }: { params: Promise<{ locale: Locale }> }) {
  const { locale } = await params;
  setRequestLocale(locale);
  const t = await getTranslations("auth");
  return (
    <ClientMessages scope="auth">
      <main className="px-4 py-12">
        <h1 className="text-center text-3xl font-bold">{t("signInTitle")}</h1>
        <AuthForm mode="signIn" />
      </main>
    </ClientMessages>
  );
}
