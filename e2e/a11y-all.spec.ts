import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { signUpViaApi } from "./helpers";

// Issue 18: no axe violations of any impact on the pages a visitor judges us by, light and dark.
const PAGES = [
  ["home", "/", false],
  ["list", "/nano-banana-lora", false],
  ["effect", "/nano-banana-lora/inverted-face-filter", false],
  ["effect (ar)", "/ar/nano-banana-lora/inverted-face-filter", false],
  ["pricing", "/pricing", false],
  ["sign-in", "/sign-in", false],
  ["account", "/account", true],
  ["history", "/history", true],
] as const;

for (const colorScheme of ["light", "dark"] as const) {
  for (const [name, path, signedIn] of PAGES) {
    test(`${name} page (${colorScheme}) has no accessibility violations`, async ({ page }) => {
      await page.emulateMedia({ colorScheme });
      await page.goto("/");
      if (signedIn) await signUpViaApi(page, "axe");
      await page.goto(path);
      await page.waitForLoadState("networkidle");
      const results = await new AxeBuilder({ page }).analyze();
      expect(
        results.violations.map(
          (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
        ),
      ).toEqual([]);
    });
  }
}
