import Link from "next/link";

// Inline styles, no stylesheet import: a stylesheet imported here is written into every page's
// RSC payload (the root not-found boundary's styles) once more with `inlineCss`
// (docs/PERFORMANCE.md, session 11).
const CSS = `
body{margin:0;min-height:100vh;display:grid;place-items:center;padding:1.5rem;box-sizing:border-box;
font-family:ui-sans-serif,system-ui,sans-serif;background:#fff;color:#18181b}
main{text-align:center}h1{margin:0;font-size:1.5rem;line-height:2rem;font-weight:700}
a{display:inline-block;margin-top:1rem;color:inherit;text-decoration:underline}
@media (prefers-color-scheme:dark){body{background:#09090b;color:#f4f4f5}}
`;

/** Paths outside any locale (rare: the proxy routes almost everything into one). */
export default function RootNotFound() {
  return (
    <html lang="en">
      <head>
        <style>{CSS}</style>
      </head>
      <body>
        <main>
          <h1>Page not found</h1>
          <Link href="/">photofx</Link>
        </main>
      </body>
    </html>
  );
}
