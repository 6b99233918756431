import type { NextConfig } from "next";
import createNextIntlPlugin from "next-intl/plugin";

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: ["sharp", "@electric-sql/pglite", "pg", "piscina"],
  // `npm test` runs tsc over the whole project; the build need not repeat it.
  typescript: { ignoreBuildErrors: true },
  // The stylesheet (10 kB gzipped, the same on every page) is sent inside the HTML: no request
  // holds the first paint back, so a page paints as its HTML is parsed, before the scripts run.
  // With a <link>, the first frame raced the parser and the scripts once the stylesheet landed
  // and often lost: the home page's largest paint (its subtitle) then came after hydration,
  // and Lighthouse counted every script in it (docs/PERFORMANCE.md, session 10).
  experimental: { inlineCss: true },
};

// ICU messages are compiled at build time (next-intl's `precompile`): the browser gets no
// message parser, and formatting a message with plain arguments creates no Intl.NumberFormat,
// whose first construction costs 20-40 ms on a phone's main thread (docs/PERFORMANCE.md).
export default createNextIntlPlugin({
  requestConfig: "./src/i18n/request.ts",
  experimental: { messages: { path: "./messages", format: "json", locales: "infer", precompile: true } },
})(config);
