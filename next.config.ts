import type { NextConfig } from "next";

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: ["sharp", "@electric-sql/pglite", "pg", "piscina"],
  typescript: { ignoreBuildErrors: false },
};

export default config;
