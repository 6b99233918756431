import type { NextConfig } from "next";
import createNextIntlPlugin from "next-intl/plugin";

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: ["sharp", "@electric-sql/pglite", "pg", "piscina"],
  // `npm test` runs tsc over the whole project; the build need not repeat it.
  typescript: { ignoreBuildErrors: true },
};

export default createNextIntlPlugin("./src/i18n/request.ts")(config);
