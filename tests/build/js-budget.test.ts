import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { firstLoadOfBuiltRoute } from "../../bench/first-load-js.mjs";

/**
 * The JavaScript budget: no page may make a browser download more than 200 kB of gzipped
 * JavaScript before it is interactive. The sizes come from the production build's manifests
 * (the same scripts `npm run bench:web` finds in each page's HTML), so this runs after
 * `npx next build`: scripts/test.sh runs it right after the build with PHOTOFX_REQUIRE_BUILD
 * set, where a missing build is a failure; elsewhere it is skipped without one.
 */

const ROOT = path.resolve(__dirname, "../..");
const NEXT_DIR = path.join(ROOT, ".next");
const BUDGET_KB = 200;

/** The pages people land on, by their app directory route. */
const PAGES: Record<string, string> = {
  home: "[locale]/page",
  "effect list": "[locale]/nano-banana-lora/page",
  "effect page": "[locale]/nano-banana-lora/[model]/page",
  pricing: "[locale]/pricing/page",
  account: "[locale]/account/page",
  "my creations": "[locale]/history/page",
  "sign in": "[locale]/sign-in/page",
  // A page with no client component of its own: its layouts' chunks alone.
  "privacy policy": "[locale]/privacy/page",
};

const built = fs.existsSync(path.join(NEXT_DIR, "BUILD_ID"));
if (process.env.PHOTOFX_REQUIRE_BUILD && !built)
  throw new Error(`no production build at ${NEXT_DIR}: run next build first`);

describe.skipIf(!built)(`first-load JavaScript stays within ${BUDGET_KB} kB gzipped`, () => {
  for (const [name, route] of Object.entries(PAGES)) {
    it(name, () => {
      const js = firstLoadOfBuiltRoute(NEXT_DIR, route);
      // The measurement is real: React and Next's runtime alone are well over 50 kB.
      expect(js.gzipKb, `${route}: ${js.files.join(", ")}`).toBeGreaterThan(50);
      expect(
        Math.round(js.gzipKb * 10) / 10,
        `${name} (${route}) loads ${js.scripts} scripts, ${js.gzipKb.toFixed(1)} kB gzipped: ${js.files.join(", ")}`,
      ).toBeLessThanOrEqual(BUDGET_KB);
    });
  }

  it("counts what a page's HTML loads: the runtime and the page's own entry chunks", () => {
    const home = firstLoadOfBuiltRoute(NEXT_DIR, "[locale]/page");
    const effect = firstLoadOfBuiltRoute(NEXT_DIR, "[locale]/nano-banana-lora/[model]/page");
    expect(home.files.some((f) => /turbopack|webpack|main/.test(f))).toBe(true);
    // The effect page's form is its own chunk, which the home page does not load.
    expect(effect.files.filter((f) => !home.files.includes(f)).length).toBeGreaterThan(0);
    expect(() => firstLoadOfBuiltRoute(NEXT_DIR, "[locale]/no-such-page/page")).toThrow(/no .* in the build/);
  });
});
