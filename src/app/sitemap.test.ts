import { describe, expect, it } from "vitest";
import { EFFECTS } from "@/core/catalogue";
import { LOCALE_TAGS, LOCALES } from "@/i18n/locales";
import { siteOrigin } from "@/i18n/seo";
import sitemap from "./sitemap";

describe("sitemap", () => {
  const entries = sitemap();
  const origin = siteOrigin();
  const urls = entries.map((e) => e.url);

  it("lists every public page once per locale", () => {
    expect(entries).toHaveLength(LOCALES.length * (3 + EFFECTS.length + 3));
    expect(new Set(urls).size).toBe(urls.length);
  });

  it("lists the privacy policy, terms and contact page in every locale, with hreflang alternates", () => {
    for (const page of ["privacy", "terms", "contact"]) {
      const en = entries.find((e) => e.url === `${origin}/${page}`);
      expect(en, page).toBeDefined();
      const languages = en!.alternates!.languages as Record<string, string>;
      expect(Object.keys(languages).sort()).toEqual(LOCALES.map((l) => LOCALE_TAGS[l]).sort());
      expect(languages[LOCALE_TAGS.tw]).toBe(`${origin}/tw/${page}`);
      for (const locale of LOCALES.filter((l) => l !== "en"))
        expect(urls).toContain(`${origin}/${locale}/${page}`);
    }
  });
});
