import { expect, test } from "@playwright/test";
import { photo, shot, uniqueEmail, uploadPhotos } from "./helpers";

const PASSWORD = "correct-horse-battery";

test("a user signs up, creates an image, exports, deletes the account; then sign-in fails and the image is gone", async ({
  page,
}) => {
  const email = uniqueEmail("delete");
  await page.goto("/sign-up");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/nano-banana-lora$/);

  // Generate one image (the free plan's bot-check solves itself).
  await page.goto("/nano-banana-lora/inverted-face-filter");
  await uploadPhotos(page, [photo("portrait-female-1.jpg")]);
  await page.getByTestId("create-button").click();
  await expect(page.getByTestId("result-card")).toHaveCount(1, { timeout: 30_000 });
  const images = (await (await page.request.get("/api/images")).json()) as { images: Array<{ url: string }> };
  expect(images.images).toHaveLength(1);
  const resultUrl = images.images[0]!.url;
  expect((await page.request.get(resultUrl)).status()).toBe(200);

  // The account page: export first (a ZIP), then delete with the typed e-mail.
  await page.goto("/account");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByTestId("export-data").click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^photofx-data-\d{4}-\d{2}-\d{2}\.zip$/);

  await page.getByTestId("delete-account").click();
  const dialog = page.getByRole("dialog", { name: "Delete your account?" });
  await expect(dialog).toBeVisible();
  const confirm = dialog.getByTestId("delete-account-confirm");
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel("Your e-mail address").fill("someone-else@example.com");
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel("Your e-mail address").fill(email);
  await shot(page, "desktop-account-delete-confirm");
  await confirm.click();
  await expect(page.getByText("Your account has been deleted.")).toBeVisible();
  await expect(page).toHaveURL(/\/(en)?$/);

  // The result's URL answers 404, signed in or not.
  expect((await page.request.get(resultUrl)).status()).toBe(404);
  expect((await page.request.get("/api/credits")).status()).toBe(401);

  // Signing in with the old credentials fails.
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(page.getByRole("alert").first()).toBeVisible();
  const api = await page.request.post("/api/auth/sign-in/email", {
    data: { email, password: PASSWORD },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(api.status()).toBe(401);
  expect((await page.request.get(resultUrl)).status()).toBe(404);
});
