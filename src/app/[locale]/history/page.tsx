import type { Metadata } from "next";
import { connection } from "next/server";
import { getTranslations, setRequestLocale } from "next-intl/server";
import { EFFECTS } from "@/core/catalogue";
import type { Locale } from "@/i18n/locales";
import { redirect } from "@/i18n/navigation";
import { effectLabels } from "@/ui/history/effect-titles";
import { HistoryView } from "@/ui/history/HistoryView";
import { pageUser } from "@/ui/share/page-services";
import { ClientMessages } from "@/ui/layout/ClientMessages";

type Props = {
  params: Promise<{ locale: Locale }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { locale } = await params;
  const t = await getTranslations({ locale, namespace: "history" });
  return { title: t("metaTitle"), robots: { index: false, follow: false } };
}

/** "My creations": signed-in users only; anyone else is sent to sign in and brought back. */
export default async function HistoryPage({ params, searchParams }: Props) {
  const { locale } = await params;
  setRequestLocale(locale);
  await connection();
  if (!(await pageUser())) {
    redirect({ href: { pathname: "/sign-in", query: { next: "/history" } }, locale });
  }
  const t = await getTranslations("history");
  const wanted = (await searchParams).effect;
  const initialEffect = typeof wanted === "string" && EFFECTS.some((e) => e.id === wanted) ? wanted : null;
  return (
    <ClientMessages scope="history">
      <main className="mx-auto max-w-7xl px-4 py-10">
        <h1 className="text-3xl font-bold">{t("title")}</h1>
        <p className="mt-2 max-w-3xl text-zinc-600 dark:text-zinc-400">{t("intro")}</p>
        <HistoryView effects={await effectLabels(locale)} initialEffect={initialEffect} />
      </main>
    </ClientMessages>
  );
}
