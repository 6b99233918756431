import type { MetadataRoute } from "next";
import { siteOrigin } from "@/i18n/seo";

// Built per request: the sitemap's address follows APP_URL as the running server has it, not
// the value at build time.
export const dynamic = "force-dynamic";

export default function robots(): MetadataRoute.Robots {
  return {
    rules: [
      {
        userAgent: "*",
        allow: "/",
        disallow: ["/api/", "/account", "/checkout/", "/*/account", "/*/checkout/"],
      },
    ],
    sitemap: `${siteOrigin()}/sitemap.xml`,
  };
}
