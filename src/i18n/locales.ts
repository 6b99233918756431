/**
 * The spec's 12 locales. "tw" is Traditional Chinese (zh-Hant, Taiwan) and "zh" Simplified.
 * English is the default and is served without a prefix.
 */
export const LOCALES = ["en", "ar", "de", "es", "fr", "it", "ja", "ko", "pt", "tw", "vi", "zh"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";

/** BCP 47 tags for <html lang>, hreflang and Intl formatting. */
export const LOCALE_TAGS: Record<Locale, string> = {
  en: "en",
  ar: "ar",
  de: "de",
  es: "es",
  fr: "fr",
  it: "it",
  ja: "ja",
  ko: "ko",
  pt: "pt",
  tw: "zh-Hant-TW",
  vi: "vi",
  zh: "zh-Hans-CN",
};

/** Each locale's own name, for the switcher. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: "English",
  ar: "العربية",
  de: "Deutsch",
  es: "Español",
  fr: "Français",
  it: "Italiano",
  ja: "日本語",
  ko: "한국어",
  pt: "Português",
  tw: "繁體中文",
  vi: "Tiếng Việt",
  zh: "简体中文",
};

export const isRtl = (locale: string): boolean => locale === "ar";
export const isLocale = (v: string): v is Locale => (LOCALES as readonly string[]).includes(v);
