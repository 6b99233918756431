import type { Metadata, Viewport } from "next";
import { notFound } from "next/navigation";
import { hasLocale, NextIntlClientProvider } from "next-intl";
import { getMessages, getTranslations, setRequestLocale } from "next-intl/server";
import type { ReactNode } from "react";
import { Toaster } from "sonner";
import { LAYOUT_CLIENT_MESSAGES, pickMessages } from "@/i18n/client-messages";
import { isRtl, LOCALE_TAGS } from "@/i18n/locales";
import { routing } from "@/i18n/routing";
import { siteOrigin } from "@/i18n/seo";
import { Footer } from "@/ui/layout/Footer";
import { Header } from "@/ui/layout/Header";
import "../globals.css";

export function generateStaticParams() {
  return routing.locales.map((locale) => ({ locale }));
}

export async function generateMetadata({
  params,
}: {
  params: Promise<{ locale: string }>;
}): Promise<Metadata> {
  const { locale } = await params;
  const t = await getTranslations({
    locale: hasLocale(routing.locales, locale) ? locale : "en",
    namespace: "home",
  });
  // Defaults for pages that set nothing (sign-in, account, checkout): not for search engines.
  return {
    metadataBase: new URL(siteOrigin()),
    title: t("metaTitle"),
    description: t("metaDescription"),
    robots: { index: false, follow: true },
  };
}

export const viewport: Viewport = {
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#0b0b10" },
  ],
};

export default async function LocaleLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ locale: string }>;
}) {
  const { locale } = await params;
  if (!hasLocale(routing.locales, locale)) notFound();
  setRequestLocale(locale);
  // The browser gets the messages the header uses; a page adds its own client components'
  // (ClientMessages): on the list page all of them were 37 kB of its 58 kB RSC payload.
  const messages = pickMessages((await getMessages()) as Record<string, unknown>, LAYOUT_CLIENT_MESSAGES);
  const t = await getTranslations("common");
  return (
    <html lang={LOCALE_TAGS[locale]} dir={isRtl(locale) ? "rtl" : "ltr"}>
      <body className="flex min-h-screen flex-col bg-white text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        <NextIntlClientProvider locale={locale} messages={messages}>
          <a
            href="#main"
            className="sr-only focus:not-sr-only focus:absolute focus:start-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-black"
          >
            {t("skipToContent")}
          </a>
          <Header />
          <div id="main" className="flex-1">
            {children}
          </div>
          <Footer />
          <Toaster richColors theme="system" position="top-center" dir={isRtl(locale) ? "rtl" : "ltr"} />
        </NextIntlClientProvider>
      </body>
    </html>
  );
}
