import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { describe, expect, it } from "vitest";

/**
 * The stylesheet is inlined into the HTML (`experimental.inlineCss`), and Next writes one more
 * copy into the RSC payload for every entry of the client reference manifest that lists it and
 * renders on the page. Turbopack lists a layout's CSS under every module below it, the global
 * error boundary and the root not-found included, so the stylesheet imported in the root layout
 * (or in the root not-found page) was sent three times per page (docs/PERFORMANCE.md, session 11).
 * It is imported in [locale]/layout.tsx only. Runs after `next build` like js-budget.test.ts.
 */

const ROOT = path.resolve(__dirname, "../..");
const NEXT_DIR = path.join(ROOT, ".next");

const PAGES = ["[locale]/page", "[locale]/nano-banana-lora/page", "[locale]/nano-banana-lora/[model]/page"];

type CssFile = { path: string; inlined?: boolean; content?: string };

function entryCss(route: string): Record<string, CssFile[]> {
  const file = path.join(NEXT_DIR, "server/app", `${route}_client-reference-manifest.js`);
  const sandbox: {
    globalThis?: unknown;
    __RSC_MANIFEST?: Record<string, { entryCSSFiles: Record<string, CssFile[]> }>;
  } = {};
  sandbox.globalThis = sandbox;
  vm.runInNewContext(fs.readFileSync(file, "utf8"), sandbox);
  const manifest = Object.values(sandbox.__RSC_MANIFEST ?? {})[0];
  if (!manifest) throw new Error(`no client reference manifest in ${file}`);
  return manifest.entryCSSFiles;
}

const built = fs.existsSync(path.join(NEXT_DIR, "BUILD_ID"));
if (process.env.PHOTOFX_REQUIRE_BUILD && !built)
  throw new Error(`no production build at ${NEXT_DIR}: run next build first`);

describe.skipIf(!built)("the inlined stylesheet is written into a page's RSC payload once", () => {
  for (const route of PAGES) {
    it(route, () => {
      const css = entryCss(route);
      // The locale layout carries it, inlined (the check is real: the stylesheet is found).
      const layout = css["[project]/src/app/[locale]/layout"] ?? [];
      expect(layout.length).toBeGreaterThan(0);
      expect(layout.every((f) => f.inlined && (f.content ?? "").length > 1000)).toBe(true);
      // Nothing above it, nor the boundaries rendered beside it, lists a stylesheet.
      for (const entry of [
        "[project]/src/app/layout",
        "[project]/src/app/global-error",
        "[project]/src/app/not-found",
      ])
        expect(css[entry] ?? [], entry).toEqual([]);
    });
  }
});
