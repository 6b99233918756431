import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { NextIntlClientProvider } from "next-intl";
import { getMessages, getTranslations, setRequestLocale } from "next-intl/server";
import { adminActor, parseAdminEmails } from "@/core/admin/roles";
import type { Locale } from "@/i18n/locales";
import { AdminConsole } from "@/ui/admin/AdminConsole";
import { effectLabels } from "@/ui/history/effect-titles";
import { pageServices, pageUser } from "@/ui/share/page-services";

type Params = Promise<{ locale: Locale }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { locale } = await params;
  const t = await getTranslations({ locale, namespace: "admin" });
  return { title: t("metaTitle"), robots: { index: false, follow: false } };
}

/**
 * The operator's console. Only an admin sees it; anyone else gets the site's 404 page (the
 * API answers the same). Its texts and its chart library are loaded on this page only.
 */
type Search = Promise<Record<string, string | string[] | undefined>>;

const one = (v: string | string[] | undefined): string | undefined =>
  typeof v === "string" && v.length <= 100 ? v : undefined;

export default async function AdminPage({ params, searchParams }: { params: Params; searchParams: Search }) {
  const { locale } = await params;
  setRequestLocale(locale);
  await connection();
  const user = await pageUser();
  const services = pageServices();
  const admin = user
    ? await adminActor(services.db, user.id, parseAdminEmails(services.env.ADMIN_EMAILS))
    : null;
  if (!admin) notFound();
  const t = await getTranslations("admin");
  const { legal: _legal, ...messages } = await getMessages();
  const search = await searchParams;
  const effects = (await effectLabels(locale)).map(({ id, title }) => ({ id, title }));
  return (
    <main className="mx-auto max-w-7xl px-4 py-6">
      <h1 className="text-2xl font-bold sm:text-3xl">{t("title")}</h1>
      <NextIntlClientProvider messages={messages}>
        <AdminConsole
          me={admin}
          effects={effects}
          initial={{ tab: one(search.tab), user: one(search.user), task: one(search.task) }}
        />
      </NextIntlClientProvider>
    </main>
  );
}
