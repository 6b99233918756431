import path from "node:path";
import { devices, expect, test } from "@playwright/test";
import { photo, shot, signUpViaApi, uniqueEmail } from "./helpers";

const HEIC = path.resolve(__dirname, "../tests/fixtures/heic/portrait-grid-rotated.heic");
const EFFECT = "/nano-banana-lora/inverted-face-filter";

test("an iPhone HEIC (tiled, rotated) uploads, shows the server's JPEG as preview, and renders", async ({
  page,
}) => {
  await page.goto("/");
  await signUpViaApi(page, "heic");
  await page.goto(EFFECT);
  const input = page.getByTestId("upload-input");
  // The picker offers HEIC: by extension and by type.
  const accept = (await input.getAttribute("accept")) ?? "";
  for (const t of [".heic", ".heif", "image/heic", "image/heif"]) expect(accept).toContain(t);

  await input.setInputFiles(HEIC);
  await expect(page.getByTestId("asset-status-done")).toHaveCount(1, { timeout: 30_000 });
  // The preview is the converted JPEG (a blob of the server's image), not the HEIC itself,
  // which Chromium cannot show: it has loaded, upright (portrait), at the stored size.
  const preview = page.getByRole("button", { name: "Preview image 1" }).locator("img");
  await expect(preview).toHaveAttribute("src", /^blob:/);
  await expect
    .poll(() =>
      preview.evaluate((img: HTMLImageElement) => [img.complete, img.naturalWidth, img.naturalHeight]),
    )
    .toEqual([true, 750, 1000]);
  await shot(page, "heic-uploaded");

  await page.getByTestId("create-button").click();
  await expect(page.getByTestId("result-card")).toHaveCount(1, { timeout: 60_000 });
  await expect(page.getByTestId("header-balance")).toHaveText("8 credits");
});

test("a signed-out visitor's photo survives sign-up and is ready to Create", async ({ page }) => {
  await page.goto(EFFECT);
  await page.getByTestId("upload-input").setInputFiles(photo("portrait-female-1.jpg"));
  // Nothing is uploaded: the photo waits in the browser and sign-up is offered at once.
  const offer = page.getByRole("dialog", { name: "Sign up to create" });
  await expect(offer).toBeVisible();
  await expect(offer).toContainText("10 free credits");
  await expect(page.getByTestId("asset-status-waiting")).toHaveCount(1);
  await page.keyboard.press("Escape");
  await expect(offer).toBeHidden();

  // Create offers it again; the visitor takes it (a full page navigation to /sign-up).
  await page.getByTestId("create-button").click();
  await expect(offer).toBeVisible();
  await shot(page, "signed-out-offer");
  await offer.getByTestId("signup-to-create").click();
  await expect(page).toHaveURL(/\/sign-up\?next=%2Fnano-banana-lora%2Finverted-face-filter$/);
  await page.reload(); // nothing kept in memory: the draft lives in IndexedDB
  await page.locator('input[name="email"]').fill(uniqueEmail("draft"));
  await page.locator('input[name="password"]').fill("correct-horse-battery");
  await page.getByRole("button", { name: "Create account" }).click();

  // Back on the effect page, signed in, with the photo restored and uploaded.
  await expect(page).toHaveURL(new RegExp(`${EFFECT}$`));
  await expect(page.getByTestId("header-balance")).toHaveText("10 credits");
  await expect(page.getByTestId("asset-status-done")).toHaveCount(1, { timeout: 20_000 });
  await expect(page.getByTestId("asset-status-waiting")).toHaveCount(0);
  await page.getByTestId("create-button").click();
  await expect(page.getByTestId("result-card")).toHaveCount(1, { timeout: 60_000 });
  await expect(page.getByTestId("header-balance")).toHaveText("8 credits");
  // The draft was used once: a reload does not bring the photo back a second time.
  await page.reload();
  await expect(page.getByTestId("header-balance")).toHaveText("8 credits");
  await expect(page.getByTestId("asset-status-done")).toHaveCount(0);
});

// A phone's screen and touch input (the browser stays the configured Chromium).
const { defaultBrowserType: _browser, ...pixel7 } = devices["Pixel 7"];

test.describe("on a phone", () => {
  test.use(pixel7);

  test("the camera is offered next to the picker", async ({ page }) => {
    await page.goto(EFFECT);
    await expect(page.getByTestId("take-photo")).toBeVisible();
    await expect(page.getByTestId("camera-input")).toHaveAttribute("capture", "environment");
    await expect(page.getByTestId("upload-area")).toBeVisible();
  });
});

test.describe("a photo picked before the page knows who is signed in", () => {
  /** Holds the account request until `release()`: the page is up, the account not yet known. */
  async function holdAccount(page: import("@playwright/test").Page) {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/api/me", async (route) => {
      await held;
      await route.continue();
    });
    return release;
  }

  test("is kept waiting, then sign-up is offered to a visitor (nothing uploaded unsigned)", async ({
    page,
  }) => {
    const release = await holdAccount(page);
    await page.goto(EFFECT);
    await page.getByTestId("upload-input").setInputFiles(photo("portrait-female-1.jpg"));
    await expect(page.getByTestId("asset-status-waiting")).toHaveCount(1);
    release();
    await expect(page.getByRole("dialog", { name: "Sign up to create" })).toBeVisible();
    await expect(page.getByTestId("asset-status-waiting")).toHaveCount(1);
    await expect(page.getByText("Upload failed")).toHaveCount(0);
  });

  test("is uploaded once a signed-in user's account is known", async ({ page }) => {
    await page.goto("/");
    await signUpViaApi(page, "early-pick");
    const release = await holdAccount(page);
    await page.goto(EFFECT);
    await page.getByTestId("upload-input").setInputFiles(photo("portrait-female-1.jpg"));
    await expect(page.getByTestId("asset-status-waiting")).toHaveCount(1);
    release();
    await expect(page.getByTestId("asset-status-done")).toHaveCount(1, { timeout: 20_000 });
    await expect(page.getByRole("dialog", { name: "Sign up to create" })).toHaveCount(0);
  });
});
