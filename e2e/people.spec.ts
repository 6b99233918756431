import { expect, test } from "@playwright/test";
import { photo, signUpViaApi, uploadPhotos } from "./helpers";

test("the bust effect asks for adult consent, then refuses a child's photo before charging", async ({
  page,
}) => {
  await page.goto("/");
  await signUpViaApi(page, "bust");
  await page.goto("/nano-banana-lora/boob-boost-effect");
  // No before/after of a real person's body: the gallery says why instead.
  await expect(page.getByTestId("examples-placeholder")).toContainText("never agreed to that");
  await expect(page.locator('img[src*="/examples/boob-boost-effect/"]')).toHaveCount(0);
  await uploadPhotos(page, [photo("child-2-girl-1860s-crop.jpg")]);
  await expect(page.getByTestId("asset-status-done")).toHaveCount(1);

  const create = page.getByTestId("create-button");
  await expect(create).toBeDisabled();
  await page.getByLabel("I confirm the person shown is an adult who consented to this edit.").check();
  await expect(create).toBeEnabled();
  await create.click();
  // The input rules run at submit: the refusal is shown, no task is made, nothing is charged.
  await expect(
    page.getByText("This photo may show someone under 18. This effect only edits photos of adults."),
  ).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("result-card")).toHaveCount(0);
  await expect(page.getByTestId("header-balance")).toHaveText("10 credits");
});

test("the baby face page says it is entertainment, not a genetic prediction", async ({ page }) => {
  await page.goto("/nano-banana-lora/baby-face-generator");
  await expect(page.getByText("For entertainment only: this is not a genetic prediction.")).toBeVisible();
});
