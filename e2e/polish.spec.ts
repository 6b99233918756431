import { expect, test } from "@playwright/test";
import { photo, signUpViaApi, uploadPhotos } from "./helpers";

/** Relative luminance of a CSS rgb()/rgba() colour, 0 (black) to 1 (white). */
function luminance(css: string): number {
  const [r, g, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number) as [number, number, number];
  const lin = (c: number) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

test("the footer sits at the bottom of a short page, not mid-screen", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 1200 });
  await page.goto("/sign-in");
  const footer = page.locator("footer");
  const box = (await footer.boundingBox())!;
  const pageHeight = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(pageHeight).toBeLessThanOrEqual(1200);
  expect(Math.abs(box.y + box.height - 1200)).toBeLessThanOrEqual(1);
});

test("toasts follow dark mode", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto("/");
  await signUpViaApi(page, "toast");
  await page.goto("/nano-banana-lora/inverted-face-filter");
  await uploadPhotos(page, [photo("portrait-male-1.jpg")]);
  const toast = page.locator("[data-sonner-toast]").filter({ hasText: "Uploaded" });
  await expect(toast).toBeVisible();
  const bg = await toast.evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(luminance(bg)).toBeLessThan(0.2);
});

for (const [locale, name, mirrored] of [
  ["ar", "مسار التنقل", true],
  ["en", "Breadcrumb", false],
] as const) {
  test(`breadcrumb separators point the reading way (${locale})`, async ({ page }) => {
    await page.goto(`/${locale}/nano-banana-lora/pixel-illustration`);
    const trail = page.getByRole("navigation", { name });
    const items = trail.locator("li:not([aria-hidden])");
    const xs = await items.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().x));
    // Right to left: home is rightmost; left to right: leftmost.
    if (mirrored) expect(xs[0]! > xs[1]! && xs[1]! > xs[2]!).toBe(true);
    else expect(xs[0]! < xs[1]! && xs[1]! < xs[2]!).toBe(true);
    // The chevron is drawn pointing right (>); a right-to-left page mirrors it to point left.
    const seps = trail.locator("li[aria-hidden] svg");
    await expect(seps).toHaveCount(2);
    for (const sep of await seps.all()) {
      const a = await sep.evaluate((el) => {
        // Tailwind 4 mirrors with the `scale` property; a transform would do too.
        const cs = getComputedStyle(el);
        const scaleX = cs.scale && cs.scale !== "none" ? parseFloat(cs.scale) : 1;
        return scaleX * new DOMMatrix(cs.transform === "none" ? undefined : cs.transform).a;
      });
      expect(a).toBe(mirrored ? -1 : 1);
    }
  });
}
