import { expect, test } from "@playwright/test";
import { shot } from "./helpers";

test("the empty results panel shows the first steps; the example pairs are in the gallery below", async ({
  page,
}) => {
  // The spec allows either empty state; the guide is chosen so the pairs are not shown twice.
  await page.goto("/nano-banana-lora/pixel-illustration");
  await expect(page.getByRole("heading", { name: "No images yet" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Examples" })).toHaveCount(1);
  await expect(page.getByRole("img", { name: /example 1: Before/ })).toHaveCount(1);
  await shot(page, "desktop-effect-examples");
});

test("the example gallery compares before and after, with previous, next and dots", async ({ page }) => {
  await page.goto("/nano-banana-lora/pixel-illustration");
  const gallery = page.locator("section[aria-labelledby=examples-heading]");
  await expect(gallery.getByText("Before", { exact: true })).toBeVisible();
  await expect(gallery.getByText("After", { exact: true })).toBeVisible();
  // The gallery says which engine made the pairs.
  await expect(gallery.getByText("Made with photofx's built-in engine, on this server")).toBeVisible();
  const dots = gallery.getByRole("button", { name: /Show example/ });
  await expect(dots).toHaveCount(3);
  await expect(dots.nth(0)).toHaveAttribute("aria-current", "true");
  await gallery.getByRole("button", { name: "Next" }).click();
  await expect(dots.nth(1)).toHaveAttribute("aria-current", "true");
  await gallery.getByRole("button", { name: "Previous" }).click();
  await gallery.getByRole("button", { name: "Previous" }).click();
  await expect(dots.nth(2)).toHaveAttribute("aria-current", "true");
  // The handle is draggable by keyboard: the slider moves.
  const handle = gallery.getByRole("slider");
  const value = await handle.getAttribute("aria-valuenow");
  await handle.focus();
  await page.keyboard.press("ArrowLeft");
  await expect(handle).not.toHaveAttribute("aria-valuenow", value!);
});

test("a gallery of one example offers nothing to page through", async ({ page }) => {
  // The pixie cut shows one pair (the fixtures' men already wear short hair).
  await page.goto("/nano-banana-lora/pixie-cut-filter");
  const gallery = page.locator("section[aria-labelledby=examples-heading]");
  await expect(gallery.getByRole("img", { name: /example 1: Before/ })).toHaveCount(1);
  await expect(gallery.getByRole("button", { name: "Next" })).toHaveCount(0);
  await expect(gallery.getByRole("button", { name: /Show example/ })).toHaveCount(0);
});

for (const [locale, before, after] of [
  ["en", "Before", "After"],
  ["ar", "قبل", "بعد"],
] as const) {
  test(`both Before and After labels of the gallery are on top of its images (${locale})`, async ({
    page,
  }) => {
    await page.goto(`/${locale}/nano-banana-lora/pixel-illustration`);
    const gallery = page.locator("section[aria-labelledby=examples-heading]");
    for (const text of [before, after]) {
      const label = gallery.getByText(text, { exact: true });
      await expect(label).toBeVisible();
      await label.scrollIntoViewIfNeeded();
      // Visible is not enough: the label must be what is drawn at its own centre, not an image.
      const onTop = await label.evaluate((el: HTMLElement) => {
        // Hit-testing skips pointer-events: none (the label lets drags through): lift it here.
        const was = el.style.pointerEvents;
        el.style.pointerEvents = "auto";
        const r = el.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        el.style.pointerEvents = was;
        return hit === el || el.contains(hit);
      });
      expect(onTop, `${text} label is covered`).toBe(true);
    }
  });
}
