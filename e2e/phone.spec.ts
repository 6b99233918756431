import { devices, expect, test } from "@playwright/test";
import { photo, shot, signUpViaApi, uploadPhotos } from "./helpers";

test.use({ ...devices["Pixel 7"], channel: undefined });

test("the journey works at a phone viewport, with the panels stacked", async ({ page }) => {
  await page.goto("/");
  await signUpViaApi(page, "phone");
  await page.goto("/nano-banana-lora/pixel-illustration");
  await shot(page, "phone-effect-empty");
  const form = await page.locator("#form-title").boundingBox();
  const results = await page.locator("#results-title").boundingBox();
  expect(results!.y).toBeGreaterThan(form!.y + 100); // stacked, not side by side
  await uploadPhotos(page, [photo("object-coffee.png")]);
  // Hold the task's event stream for 2 s so the loading state can be seen and checked.
  await page.route("**/taskEvents**", async (route) => {
    await new Promise((r) => setTimeout(r, 2_000));
    await route.continue();
  });
  await page.getByTestId("create-button").click();
  const pending = page.getByTestId("pending-card");
  await expect(pending).toHaveCount(1, { timeout: 20_000 });
  await expect(pending).toContainText(/Generating image 1/);
  await expect(pending).toContainText(/\ds/);
  await shot(page, "phone-effect-loading");
  await expect(page.getByTestId("result-card")).toHaveCount(1, { timeout: 30_000 });
  await expect(page.getByTestId("header-balance")).toHaveText("8 credits");
  await shot(page, "phone-effect-result");
});
