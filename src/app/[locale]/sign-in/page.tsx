import { getTranslations, setRequestLocale } from "next-intl/server";
import type { Locale } from "@/i18n/locales";
import { AuthForm } from "@/ui/auth/AuthForm";

export default async function SignInPage({ params }: { params: Promise<{ locale: Locale }> }) {
  const { locale } = await params;
  setRequestLocale(locale);
  const t = await getTranslations("auth");
  return (
    <main className="px-4 py-12">
      <h1 className="text-center text-3xl font-bold">{t("signInTitle")}</h1>
      <AuthForm mode="signIn" />
    </main>
  );
}
