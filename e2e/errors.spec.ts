import { expect, test } from "@playwright/test";
import { photo, shot, signUpViaApi, solveBotCheck, uploadPhotos } from "./helpers";

test.beforeEach(async ({ page }) => {
  await page.goto("/");
  await signUpViaApi(page);
});

test("a 402 opens the insufficient-credits modal, with no toast", async ({ page }) => {
  // The page is open with 10 credits (the balance it knows), then another tab spends them:
  // the page's own balance check passes and the server's 402 answers the submit.
  await page.goto("/nano-banana-lora/pixel-illustration");
  await expect(page.getByTestId("header-balance")).toHaveText("10 credits");
  // Spend the 10 starting credits through the API (5 generations).
  // Playwright's API requests are not from a page: they say where they come from, as a browser does.
  const origin = new URL(page.url()).origin;
  for (let i = 0; i < 5; i++) {
    const up = await page.request.post("/api/upload", {
      headers: { origin },
      multipart: {
        file: {
          name: "a.png",
          mimeType: "image/png",
          buffer: require("node:fs").readFileSync(photo("pet-1-cat.png")),
        },
      },
    });
    const { url } = await up.json();
    const res = await page.request.post("/api/img/nano-banana/submit", {
      data: {
        prompt: "",
        image_urls: [url],
        num_images: "1",
        turnstileToken: await solveBotCheck(page),
        imageType: "nano-banana-lora-inverted-face-filter",
      },
      headers: { "idempotency-key": `spend-${i}`, origin },
    });
    expect(res.status()).toBe(200);
  }
  await uploadPhotos(page, [photo("object-coffee.png")]);
  await page.getByTestId("create-button").click();
  const modal = page.getByRole("dialog", { name: "Not enough credits" });
  await expect(modal).toBeVisible();
  await expect(modal.getByRole("link", { name: "Buy credits" })).toHaveAttribute("href", "/pricing");
  await expect(page.locator("[data-sonner-toast][data-type=error]")).toHaveCount(0);
  await shot(page, "desktop-insufficient-credits");
});

test("a refused file shows the spec's message", async ({ page }) => {
  await page.goto("/nano-banana-lora/pixel-illustration");
  const message =
    "Some images were rejected. Please ensure each image is less than 10MB and of type PNG, JPG, JPEG, or WebP.";
  // Refused in the browser (wrong type)…
  await page
    .getByTestId("upload-input")
    .setInputFiles({ name: "anim.gif", mimeType: "image/gif", buffer: Buffer.from("GIF89a") });
  await expect(page.getByText(message)).toBeVisible();
  // …and by the server (a text file that claims to be a PNG).
  await page
    .getByTestId("upload-input")
    .setInputFiles({ name: "fake.png", mimeType: "image/png", buffer: Buffer.from("not an image") });
  await expect(page.getByTestId("asset-status-error")).toHaveCount(1);
  await expect(page.getByText(message).first()).toBeVisible();
  await shot(page, "desktop-refused-file");
});

test("a free user's third image opens the upgrade modal", async ({ page }) => {
  await page.goto("/nano-banana-lora/inverted-face-filter");
  await uploadPhotos(page, [photo("pet-1-cat.png"), photo("object-coffee.png")]);
  await page.getByTestId("upload-input").setInputFiles([photo("portrait-male-1.jpg")]);
  const modal = page.getByRole("dialog", { name: "Upgrade to upload more" });
  await expect(modal).toBeVisible();
  await expect(modal.getByRole("link", { name: "See plans" })).toBeVisible();
  await expect(page.getByTestId("asset-status-done")).toHaveCount(2);
  await shot(page, "desktop-upgrade-modal");
});

test("an unknown effect id gives a localized not-found page", async ({ page }) => {
  const res = await page.goto("/nano-banana-lora/no-such-effect");
  expect(res?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Browse all effects" })).toBeVisible();
  await shot(page, "desktop-not-found");
});

test("a backslash or protocol-relative path is a plain 404, not a server error", async ({ request }) => {
  for (const path of ["/%5C%5Cevil.example", "/%5c/evil.example"]) {
    const res = await request.get(path, { maxRedirects: 0 });
    expect(res.status(), path).toBe(404);
  }
});

test("pages cannot be framed by another site and carry the security headers", async ({ request }) => {
  for (const path of ["/", "/en/account", "/en/nano-banana-lora/gta-style-filter"]) {
    const res = await request.get(path);
    const h = res.headers();
    expect(h["x-frame-options"], path).toBe("DENY");
    expect(h["content-security-policy"], path).toContain("frame-ancestors 'none'");
    expect(h["x-content-type-options"], path).toBe("nosniff");
    expect(h["referrer-policy"], path).toBe("strict-origin-when-cross-origin");
  }
});
