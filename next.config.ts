import type { NextConfig } from "next";

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: ["sharp", "@electric-sql/pglite", "pg", "piscina"],
  // `npm test` runs tsc over the whole project; the build need not repeat it.
  typescript: { ignoreBuildErrors: true },
};

export default config;
