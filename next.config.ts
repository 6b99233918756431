import type { NextConfig } from "next";
import createNextIntlPlugin from "next-intl/plugin";

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: ["sharp", "@electric-sql/pglite", "pg", "piscina"],
  // `npm test` runs tsc over the whole project; the build need not repeat it.
  typescript: { ignoreBuildErrors: true },
};

// ICU messages are compiled at build time (next-intl's `precompile`): the browser gets no
// message parser, and formatting a message with plain arguments creates no Intl.NumberFormat,
// whose first construction costs 20-40 ms on a phone's main thread (docs/PERFORMANCE.md).
export default createNextIntlPlugin({
  requestConfig: "./src/i18n/request.ts",
  experimental: { messages: { path: "./messages", format: "json", locales: "infer", precompile: true } },
})(config);
