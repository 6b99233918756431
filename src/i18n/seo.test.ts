import { describe, expect, it } from "vitest";
import type { Locale } from "./locales";
import { pageMetadata } from "./seo";

describe("pageMetadata", () => {
  it("gives Open Graph the locale's BCP 47 tag", () => {
    const m = pageMetadata({ locale: "tw", path: "/", title: "t", description: "d" });
    expect(m.openGraph).toMatchObject({ locale: "zh_Hant_TW" });
  });

  it("does not throw for a path segment that is no locale (the layout answers 404 after it)", () => {
    const m = pageMetadata({ locale: "favicon.png" as Locale, path: "/", title: "t", description: "d" });
    expect(m.openGraph).toMatchObject({ locale: "en" });
  });
});
