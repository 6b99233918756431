import { DEFAULT_LOCALE, isLocale, type Locale } from "@/i18n/locales";
import { LOCALE_HEADER } from "./locale-header";
import { readCookie } from "./session-cache";

export { LOCALE_HEADER };

/** An Accept-Language tag as one of our locales (zh-TW, zh-HK and zh-Hant are "tw"). */
function localeOfTag(tag: string): Locale | null {
  const t = tag.trim().toLowerCase();
  if (/^zh-(?:tw|hk|mo|hant)\b/.test(t)) return "tw";
  const primary = t.split("-")[0] ?? "";
  return isLocale(primary) ? primary : null;
}

/** The best of our locales in an Accept-Language header (by its q-values), or null. */
export function localeOfAcceptLanguage(header: string | null): Locale | null {
  if (!header) return null;
  const ranked = header
    .slice(0, 512)
    .split(",")
    .slice(0, 20)
    .map((part, i) => {
      const [tag = "", ...params] = part.split(";");
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag, q: q === undefined ? 1 : Number(q), i };
    })
    .filter((e) => Number.isFinite(e.q) && e.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of ranked) {
    const locale = localeOfTag(tag);
    if (locale) return locale;
  }
  return null;
}

/**
 * The language of the messages a request leads to: the page's locale our pages send
 * (LOCALE_HEADER), else the NEXT_LOCALE cookie next-intl keeps, else Accept-Language, else
 * English. Every candidate is checked against LOCALES.
 */
export function requestLocale(headers: Headers | undefined | null): Locale {
  if (!headers) return DEFAULT_LOCALE;
  const explicit = headers.get(LOCALE_HEADER)?.trim().toLowerCase();
  if (explicit && isLocale(explicit)) return explicit;
  const cookie = readCookie(headers.get("cookie"), "NEXT_LOCALE")?.toLowerCase();
  if (cookie && isLocale(cookie)) return cookie;
  return localeOfAcceptLanguage(headers.get("accept-language")) ?? DEFAULT_LOCALE;
}
