import type { Metadata } from "next";
import { getEnv } from "@/config/env";
import { DEFAULT_LOCALE, LOCALE_TAGS, LOCALES, type Locale } from "./locales";

/**
 * URLs search engines see: English unprefixed, other locales under /{locale}, with
 * hreflang alternates for all 12 locales and x-default pointing at English.
 */
export function siteOrigin(): string {
  return getEnv().appUrl;
}

export function localizedPath(locale: Locale, path: string): string {
  const clean = path === "/" ? "" : path;
  return locale === DEFAULT_LOCALE ? clean || "/" : `/${locale}${clean}`;
}

export function alternates(locale: Locale, path: string): NonNullable<Metadata["alternates"]> {
  const languages: Record<string, string> = {};
  for (const l of LOCALES) languages[LOCALE_TAGS[l]] = localizedPath(l, path);
  languages["x-default"] = localizedPath(DEFAULT_LOCALE, path);
  return { canonical: localizedPath(locale, path), languages };
}

/** Metadata every page shares: title, description, canonical and hreflang, Open Graph. */
export function pageMetadata(opts: {
  locale: Locale;
  path: string;
  title: string;
  description: string;
  image?: string;
}): Metadata {
  return {
    metadataBase: new URL(siteOrigin()),
    title: opts.title,
    description: opts.description,
    alternates: alternates(opts.locale, opts.path),
    robots: { index: true, follow: true },
    openGraph: {
      type: "website",
      siteName: "photofx",
      title: opts.title,
      description: opts.description,
      url: localizedPath(opts.locale, opts.path),
      // A path that is no locale (a stray /favicon.png) reaches here before the layout's 404.
      locale: (LOCALE_TAGS[opts.locale] ?? LOCALE_TAGS[DEFAULT_LOCALE]).replace(/-/g, "_"),
      ...(opts.image ? { images: [{ url: opts.image, width: 640, height: 640 }] } : {}),
    },
    twitter: {
      card: opts.image ? "summary_large_image" : "summary",
      title: opts.title,
      description: opts.description,
    },
  };
}
