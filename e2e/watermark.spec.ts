import { expect, test } from "@playwright/test";
import { photo, signUpViaApi, uploadPhotos } from "./helpers";

test("the watermark remover asks for the right to edit before Create, then removes the mark", async ({
  page,
}) => {
  await page.goto("/");
  await signUpViaApi(page, "watermark");
  await page.goto("/nano-banana-lora/watermark-remover");
  await uploadPhotos(page, [photo("watermark-2-portrait-centered.jpg")]);
  await expect(page.getByTestId("asset-status-done")).toHaveCount(1);

  const create = page.getByTestId("create-button");
  await expect(create).toBeDisabled();
  await page.getByLabel("I confirm I own this image or have the right to edit it.").check();
  await expect(create).toBeEnabled();
  await create.click();
  // A free user's bot-check runs first; the submit then follows by itself.
  await expect(page.getByTestId("result-card")).toHaveCount(1, { timeout: 30_000 });
  await expect(page.getByTestId("header-balance")).toHaveText("8 credits");
});
