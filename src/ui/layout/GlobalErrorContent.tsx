"use client";

import { useEffect, useState } from "react";
import { DEFAULT_LOCALE, isLocale, isRtl, LOCALE_TAGS, type Locale } from "@/i18n/locales";

type Texts = { errorTitle: string; errorBody: string; tryAgain: string; home: string };

/** The namespace (messages/<locale>/common.json) that holds this page's words. */
const NAMESPACE = "common";

function textsOf(file: unknown): Texts | null {
  const c = (file as Record<string, Record<string, unknown> | undefined> | null)?.[NAMESPACE];
  const keys = ["errorTitle", "errorBody", "tryAgain", "home"] as const;
  if (!c || keys.some((k) => typeof c[k] !== "string")) return null;
  return { errorTitle: c.errorTitle, errorBody: c.errorBody, tryAgain: c.tryAgain, home: c.home } as Texts;
}

/** The address's locale prefix (English has none). */
function localeOf(pathname: string): Locale {
  const first = pathname.split("/")[1] ?? "";
  return isLocale(first) ? first : DEFAULT_LOCALE;
}

function loadTexts(locale: Locale): Promise<Texts | null> {
  return import(`../../../messages/${locale}/common.json`).then(
    (m: { default?: unknown }) => textsOf(m.default ?? m),
    () => null,
  );
}

// Inline styles: the global stylesheet is not loaded on this page (see src/app/global-error.tsx).
// The look follows the not-found page.
const CSS = `
body{margin:0;min-height:100vh;display:grid;place-items:center;padding:1.5rem;box-sizing:border-box;
font-family:ui-sans-serif,system-ui,sans-serif,"Apple Color Emoji","Segoe UI Emoji";background:#fff;color:#18181b;
-webkit-font-smoothing:antialiased}
main{max-width:36rem;text-align:center}
h1{margin:0;font-size:1.875rem;line-height:2.25rem;font-weight:700}
p{margin:1rem 0 0;color:#52525b}
.a{display:flex;flex-wrap:wrap;gap:.75rem;justify-content:center;margin-top:2rem}
button,a{font:inherit;font-weight:500;border-radius:.5rem;padding:.625rem 1.25rem;cursor:pointer;text-decoration:none}
button{border:0;background:#7c3aed;color:#fff}button:hover{background:#6d28d9}
a{border:1px solid #d4d4d8;color:inherit}
:focus-visible{outline:2px solid #7c3aed;outline-offset:2px}
@media (prefers-color-scheme:dark){body{background:#09090b;color:#f4f4f5}p{color:#a1a1aa}a{border-color:#3f3f46}}
`;

/**
 * The global error page's content, in the address's locale (`common.json`: errorTitle,
 * errorBody, tryAgain, home; English when the locale's file cannot be loaded).
 */
export default function GlobalErrorContent({ retry }: { retry?: () => void }) {
  const [locale, setLocale] = useState<Locale | null>(null);
  const [texts, setTexts] = useState<Texts | null>(null);
  useEffect(() => {
    const l = localeOf(window.location.pathname);
    const root = document.documentElement;
    root.lang = LOCALE_TAGS[l];
    root.dir = isRtl(l) ? "rtl" : "ltr";
    setLocale(l);
    let live = true;
    void loadTexts(l)
      .then((t) => t ?? (l === DEFAULT_LOCALE ? null : loadTexts(DEFAULT_LOCALE)))
      .then((t) => {
        if (!live || !t) return;
        document.title = t.errorTitle;
        setTexts(t);
      });
    return () => {
      live = false;
    };
  }, []);
  return (
    <>
      <style>{CSS}</style>
      {texts && locale && (
        <main>
          <h1>{texts.errorTitle}</h1>
          <p>{texts.errorBody}</p>
          <div className="a">
            <button type="button" onClick={() => (retry ?? (() => window.location.reload()))()}>
              {texts.tryAgain}
            </button>
            <a href={locale === DEFAULT_LOCALE ? "/" : `/${locale}`}>{texts.home}</a>
          </div>
        </main>
      )}
    </>
  );
}
