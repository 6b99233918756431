import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { photo, shot, uniqueEmail, uploadPhotos } from "./helpers";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

test("a new user signs up, creates a mirror image, inspects, copies, downloads, and pays 2 credits", async ({
  page,
}) => {
  await page.goto("/sign-up");
  await shot(page, "desktop-sign-up");
  await page.getByLabel("Email").fill(uniqueEmail("journey"));
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/nano-banana-lora$/);
  await expect(page.getByTestId("header-balance")).toHaveText("10 credits");

  await page.goto("/nano-banana-lora/inverted-face-filter");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByText("Free plan: 2 Images max")).toBeVisible();
  await shot(page, "desktop-effect-empty");

  await uploadPhotos(page, [photo("portrait-female-1.jpg")]);
  await expect(page.getByTestId("asset-status-done")).toHaveCount(1);
  await shot(page, "desktop-effect-uploaded");

  const create = page.getByTestId("create-button");
  await expect(create).toHaveText("Create (2 credits)");
  await create.click();
  await expect(create).toHaveText("Generating...");
  // A free user's bot-check runs first; the submit then follows by itself.
  await expect(page.getByRole("dialog", { name: "Quick check" })).toBeVisible();

  // When did the engine finish? Watch the API; then measure until the result shows.
  let finishedAt = 0;
  for (let i = 0; i < 400 && !finishedAt; i++) {
    const images = (await (await page.request.get("/api/images")).json()) as { images: unknown[] };
    if (images.images.length > 0) finishedAt = Date.now();
    else await page.waitForTimeout(25);
  }
  expect(finishedAt).toBeGreaterThan(0);
  await expect(page.getByTestId("result-card")).toHaveCount(1);
  const shownAfterMs = Date.now() - finishedAt;
  expect(shownAfterMs).toBeLessThan(2_500);
  await expect(page.getByText("Successfully generated 1 image(s)!")).toBeVisible();
  await expect(page.getByTestId("header-balance")).toHaveText("8 credits");
  await expect(create).toHaveText("Create (2 credits)");
  await shot(page, "desktop-effect-result");

  const viewDetails = page.getByRole("button", { name: "View details" });
  await viewDetails.click();
  const dialog = page.getByRole("dialog", { name: "Image Details" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByText("Created")).toBeVisible();
  await expect(dialog.getByTestId("details-seed")).toHaveText(/^\d+$/);
  // The model line names the engine for people, not by an internal id.
  await expect(dialog.getByTestId("details-model")).toHaveText("photofx's built-in engine, on this server");
  // No prompt: nothing to copy, so no Copy button that would claim "Copied".
  await expect(dialog.getByTestId("details-prompt")).toHaveText("No prompt available");
  await expect(dialog.getByRole("button", { name: /^Cop(y|ied)$/ })).toHaveCount(0);
  // One way to close it, with one name.
  await expect(dialog.getByRole("button", { name: "Close" })).toHaveCount(1);
  await shot(page, "desktop-details-modal");

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    dialog.getByRole("button", { name: "Download" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^inverted-face-filter_\d{8}_\d{6}_1\.png$/);
  const bytes = fs.readFileSync((await download.path())!);
  expect(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(
    true,
  );
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(dialog).toBeHidden();
  // Focus goes back to the button that opened it, not to the page body.
  await expect(viewDetails).toBeFocused();

  // The full-screen slider opens on a click.
  await page.getByRole("img", { name: "Generated image 1" }).click();
  await expect(page.locator(".yarl__root")).toBeVisible();
  await page.keyboard.press("Escape");
});
