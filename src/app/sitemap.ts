import type { MetadataRoute } from "next";
import { EFFECTS } from "@/core/catalogue";
import { LOCALE_TAGS, LOCALES } from "@/i18n/locales";
import { localizedPath, siteOrigin } from "@/i18n/seo";

/** Every public page in every locale, with its hreflang alternates. */
export default function sitemap(): MetadataRoute.Sitemap {
  const origin = siteOrigin();
  const paths = ["/", "/nano-banana-lora", "/pricing", ...EFFECTS.map((e) => e.href)];
  return paths.flatMap((path) =>
    LOCALES.map((locale) => ({
      url: `${origin}${localizedPath(locale, path)}`,
      changeFrequency: "weekly" as const,
      priority: path === "/" ? 1 : path.startsWith("/nano-banana-lora/") ? 0.8 : 0.6,
      alternates: {
        languages: Object.fromEntries(
          LOCALES.map((l) => [LOCALE_TAGS[l], `${origin}${localizedPath(l, path)}`]),
        ),
      },
    })),
  );
}
