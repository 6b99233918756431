import type { ReactNode } from "react";

/**
 * Every page is rendered per request: each response carries a fresh script nonce in its
 * Content-Security-Policy (server.ts), which Next.js puts on its own scripts; a page
 * prerendered at build time would carry none, and the browser would block its scripts.
 */
export const dynamic = "force-dynamic";

/**
 * The <html> element and the stylesheet live in [locale]/layout.tsx, where the language is known.
 * The stylesheet is imported there, not here: Turbopack lists a layout's CSS for every module
 * below it, the global error boundary included, so with `inlineCss` a stylesheet imported here
 * was written into each page's RSC payload twice (docs/PERFORMANCE.md, session 11).
 */
export default function RootLayout({ children }: { children: ReactNode }) {
  return children;
}
