import type { MetadataRoute } from "next";
import { siteOrigin } from "@/i18n/seo";

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
