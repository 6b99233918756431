import type { ReactNode } from "react";
import "./globals.css";

/**
 * Every page is rendered per request: each response carries a fresh script nonce in its
 * Content-Security-Policy (server.ts), which Next.js puts on its own scripts; a page
 * prerendered at build time would carry none, and the browser would block its scripts.
 */
export const dynamic = "force-dynamic";

/** The <html> element lives in [locale]/layout.tsx, where the language is known. */
export default function RootLayout({ children }: { children: ReactNode }) {
  return children;
}
