import { getTranslations, setRequestLocale } from "next-intl/server";
import type { Locale } from "@/i18n/locales";
import { linkToken } from "@/ui/auth/link-token";
import { ResetPasswordForm } from "@/ui/auth/ResetPasswordForm";
import { ClientMessages } from "@/ui/layout/ClientMessages";

export default async function ResetPasswordPage({
  params,
  searchParams,
}: {
  params: Promise<{ locale: Locale }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { locale } = await params;
  setRequestLocale(locale);
  const t = await getTranslations("auth");
  const token = linkToken((await searchParams).token);
  return (
    <ClientMessages scope="auth">
      <main className="px-4 py-12">
        <h1 className="text-center text-3xl font-bold">{t("resetTitle")}</h1>
        <ResetPasswordForm token={token} />
      </main>
    </ClientMessages>
  );
}
