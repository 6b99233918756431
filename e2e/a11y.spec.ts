import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { signUpViaApi } from "./helpers";

for (const [name, path, signedIn] of [
  ["effect page", "/nano-banana-lora/inverted-face-filter", false],
  ["list page", "/nano-banana-lora", false],
  ["account page", "/account", true],
] as const) {
  test(`${name} has no serious or critical accessibility violations`, async ({ page }) => {
    await page.goto("/");
    if (signedIn) await signUpViaApi(page, "a11y");
    await page.goto(path);
    await page.waitForLoadState("networkidle");
    const results = await new AxeBuilder({ page }).analyze();
    const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`)).toEqual([]);
  });
}

// The front door (home, list, legal pages), in light and in dark mode.
for (const colorScheme of ["light", "dark"] as const) {
  for (const [name, path] of [
    ["home page", "/"],
    ["list page", "/nano-banana-lora"],
    ["privacy page", "/privacy"],
    ["terms page", "/terms"],
    ["contact page", "/contact"],
  ] as const) {
    test(`${name} (${colorScheme}) has no serious or critical accessibility violations`, async ({ page }) => {
      await page.emulateMedia({ colorScheme });
      await page.goto(path);
      await page.waitForLoadState("networkidle");
      const results = await new AxeBuilder({ page }).analyze();
      const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
      expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`)).toEqual([]);
    });
  }
}
