import { expect, test } from "@playwright/test";
import { shot } from "./helpers";

test("the empty results panel autoplays example pairs every 3 s and pauses on hover", async ({ page }) => {
  await page.goto("/nano-banana-lora/pixel-illustration");
  const carousel = page.getByRole("region", { name: "Examples" }).first();
  await expect(carousel.getByRole("img", { name: /example 1: Before/ })).toBeVisible();
  const track = carousel.locator("div.flex").first();
  // The track's horizontal offset, rounded (mid-animation reads land between slides).
  const offset = async () => {
    const style = (await track.getAttribute("style")) ?? "";
    return Math.round(Number(/translate3d\((-?[\d.]+)px/.exec(style)?.[1] ?? 0));
  };
  const before = await offset();
  await page.waitForTimeout(3_600);
  expect(await offset()).not.toEqual(before); // it moved on by itself
  await track.hover();
  await page.waitForTimeout(1_000); // let a slide already under way settle
  const paused = await offset();
  await page.waitForTimeout(3_600);
  expect(await offset()).toEqual(paused);
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
