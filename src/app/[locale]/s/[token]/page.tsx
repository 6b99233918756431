import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { cache } from "react";
import { getTranslations, setRequestLocale } from "next-intl/server";
import { getEffect } from "@/core/catalogue";
import { findShare, shareImagePath, sharePagePath } from "@/core/share";
import { getEffectCopy } from "@/i18n/effect-copy";
import { LOCALE_TAGS, type Locale } from "@/i18n/locales";
import { localizedPath, siteOrigin } from "@/i18n/seo";
import { SharedResult } from "@/ui/share/SharedResult";
import { pageServices } from "@/ui/share/page-services";

type Params = Promise<{ locale: Locale; token: string }>;

/** The live share and its effect's copy, read once per request (metadata and page). */
const loadShare = cache(async (locale: Locale, token: string) => {
  const share = await findShare(pageServices().db, token);
  if (!share) return null;
  const effect = getEffect(share.effectId);
  const copy = await getEffectCopy(locale, share.effectId);
  return { share, effect, title: copy?.title ?? effect?.title ?? share.effectId };
});

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { locale, token } = await params;
  await connection();
  const found = await loadShare(locale, token);
  if (!found) return { robots: "noindex" };
  const t = await getTranslations({ locale, namespace: "history" });
  const title = t("shareMetaTitle", { effect: found.title });
  const description = t("shareMetaDescription", { effect: found.title });
  const image = `${siteOrigin()}${shareImagePath(token)}`;
  const alt = t("shareImageAlt", { effect: found.title });
  return {
    metadataBase: new URL(siteOrigin()),
    title,
    description,
    // A shared result is for the people it was sent to, not for search engines.
    robots: "noindex",
    openGraph: {
      type: "website",
      siteName: "photofx",
      title,
      description,
      url: localizedPath(locale, sharePagePath(token)),
      locale: LOCALE_TAGS[locale].replace(/-/g, "_"),
      images: [{ url: image, width: found.share.width, height: found.share.height, alt }],
    },
    twitter: { card: "summary_large_image", title, description, images: [image] },
  };
}

/** A result its owner shared: the image, the effect it was made with, and a way to try it. */
export default async function SharePage({ params }: { params: Params }) {
  const { locale, token } = await params;
  setRequestLocale(locale);
  await connection();
  const found = await loadShare(locale, token);
  if (!found) notFound();
  return (
    <SharedResult
      imageUrl={shareImagePath(token)}
      width={found.share.width}
      height={found.share.height}
      effectTitle={found.title}
      effectHref={found.effect?.href ?? null}
    />
  );
}
