import type { MetadataRoute } from "next";
import { EFFECTS } from "@/core/catalogue";
import { LOCALE_TAGS, LOCALES } from "@/i18n/locales";
import { localizedPath, siteOrigin } from "@/i18n/seo";

// Rendered per request: the origin is APP_URL at run time (one image serves any domain), not
// whatever APP_URL was when `next build` ran.
export const dynamic = "force-dynamic";

/** The privacy policy, terms and contact page: public, indexed, rarely changed. */
const LEGAL_PATHS = ["/privacy", "/terms", "/contact"] as const;

/** Every public page in every locale, with its hreflang alternates. */
export default function sitemap(): MetadataRoute.Sitemap {
  const origin = siteOrigin();
  const paths = ["/", "/nano-banana-lora", "/pricing", ...EFFECTS.map((e) => e.href), ...LEGAL_PATHS];
  const legal = new Set<string>(LEGAL_PATHS);
  return paths.flatMap((path) =>
    LOCALES.map((locale) => ({
      url: `${origin}${localizedPath(locale, path)}`,
      changeFrequency: legal.has(path) ? ("monthly" as const) : ("weekly" as const),
      priority: path === "/" ? 1 : path.startsWith("/nano-banana-lora/") ? 0.8 : legal.has(path) ? 0.3 : 0.6,
      alternates: {
        languages: Object.fromEntries(
          LOCALES.map((l) => [LOCALE_TAGS[l], `${origin}${localizedPath(l, path)}`]),
        ),
      },
    })),
  );
}
