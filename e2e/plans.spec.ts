import { expect, test } from "@playwright/test";
import { photo, shot, signUpViaApi, uploadPhotos } from "./helpers";

test("a free user passes the ALTCHA check and the submit goes through by itself", async ({ page }) => {
  await page.goto("/");
  await signUpViaApi(page, "altcha");
  await page.goto("/nano-banana-lora/inverted-face-filter");
  await uploadPhotos(page, [photo("pet-1-cat.png")]);
  const submits: string[] = [];
  page.on("request", (r) => {
    if (r.url().endsWith("/api/img/nano-banana/submit")) submits.push(r.postData() ?? "");
  });
  await page.getByTestId("create-button").click();
  await expect(page.getByRole("dialog", { name: "Quick check" })).toBeVisible();
  await shot(page, "desktop-botcheck");
  // No further click: the check solves itself and the submit follows.
  await expect(page.getByTestId("result-card")).toHaveCount(1, { timeout: 30_000 });
  expect(submits).toHaveLength(1);
  expect(JSON.parse(submits[0]!).turnstileToken).toEqual(expect.any(String));
  await expect(page.getByTestId("header-balance")).toHaveText("8 credits");
});

test("a user buys a credit pack through the test checkout and the header balance rises", async ({ page }) => {
  await page.goto("/");
  await signUpViaApi(page, "buyer");
  await page.goto("/pricing");
  await expect(page.getByTestId("test-mode")).toBeVisible();
  await expect(page.getByTestId("header-balance")).toHaveText("10 credits");
  await shot(page, "desktop-pricing");
  await page.getByTestId("buy-starter").click();
  await expect(page).toHaveURL(/\/checkout\/test\//);
  await expect(page.getByText("Test mode: this is not a real payment")).toBeVisible();
  await shot(page, "desktop-test-checkout");
  await page.getByRole("button", { name: "Pay (test)" }).click();
  await expect(page).toHaveURL(/\/checkout\/success/);
  await expect(page.getByTestId("checkout-result")).toHaveText(/purchase is complete/);
  await expect(page.getByTestId("header-balance")).toHaveText("50 credits");
  await page.goto("/account");
  await expect(page.getByText("Purchase", { exact: false }).first()).toBeVisible();
});

test("a subscriber uploads 5 images in one submit, with no bot-check", async ({ page }) => {
  await page.goto("/");
  await signUpViaApi(page, "subscriber");
  await page.goto("/pricing");
  await page.getByTestId("buy-pro").click();
  await page.getByRole("button", { name: "Pay (test)" }).click();
  await expect(page.getByTestId("header-balance")).toHaveText("310 credits");
  await page.goto("/nano-banana-lora/inverted-face-filter");
  await expect(page.getByText("Free plan: 2 Images max")).toHaveCount(0);
  await uploadPhotos(page, [
    photo("pet-1-cat.png"),
    photo("object-coffee.png"),
    photo("portrait-male-1.jpg"),
    photo("portrait-male-2.jpg"),
    photo("portrait-female-1.jpg"),
  ]);
  await expect(page.getByTestId("asset-status-done")).toHaveCount(5);
  await page.getByTestId("create-button").click();
  await expect(page.getByRole("dialog", { name: "Quick check" })).toHaveCount(0);
  await expect(page.getByTestId("result-card")).toHaveCount(5, { timeout: 60_000 });
  await expect(page.getByText("Successfully generated 5 image(s)!")).toBeVisible();
  await expect(page.getByTestId("header-balance")).toHaveText("300 credits");
  await shot(page, "desktop-subscriber-results");
});
