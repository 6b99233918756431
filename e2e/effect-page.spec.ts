import fs from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { photo, signUpViaApi, solveBotCheck, uploadPhotos } from "./helpers";

/**
 * The effect page and the account pages as a visitor judges them (issue 18): what Create
 * costs, the empty results panel, a cancelled check, a known-short balance, an ended session,
 * where focus goes when a result arrives, the credit history's names and the checkout's line.
 */

const MIRROR = "nano-banana-lora-inverted-face-filter";

/** Spends 2 credits `times` times through the API (one mirror image each), as a busy user would. */
async function spendViaApi(page: Page, times: number): Promise<void> {
  const origin = new URL(page.url()).origin;
  for (let i = 0; i < times; i++) {
    const up = await page.request.post("/api/upload", {
      headers: { origin },
      multipart: {
        file: { name: "a.png", mimeType: "image/png", buffer: fs.readFileSync(photo("pet-1-cat.png")) },
      },
    });
    const { url } = await up.json();
    const res = await page.request.post("/api/img/nano-banana/submit", {
      data: {
        prompt: "",
        image_urls: [url],
        num_images: "1",
        turnstileToken: await solveBotCheck(page),
        imageType: MIRROR,
      },
      headers: { "idempotency-key": `spend-${Date.now()}-${i}`, origin },
    });
    expect(res.status()).toBe(200);
  }
}

const header = (page: Page) => page.getByRole("navigation", { name: "Main" });

test.describe("signed in", () => {
  test.beforeEach(async ({ page }) => {
    await page.goto("/");
    await signUpViaApi(page, "effectpage");
  });

  test("Create states what it will charge: 2 credits per photo, one task for the two-photo effects", async ({
    page,
  }) => {
    await page.goto("/nano-banana-lora/inverted-face-filter");
    await expect(page.getByRole("button", { name: "Create (2 credits)" })).toBeVisible();
    await uploadPhotos(page, [photo("pet-1-cat.png"), photo("object-coffee.png")]);
    const create = page.getByRole("button", { name: "Create (4 credits)" });
    await expect(create).toBeVisible();
    // Removing one photo brings it back to one task.
    await page.getByRole("button", { name: "Remove image 2" }).click();
    await expect(page.getByRole("button", { name: "Create (2 credits)" })).toBeVisible();
    await uploadPhotos(page, [photo("object-coffee.png")]);
    // What the button says is what is charged.
    await create.click();
    await expect(page.getByRole("img", { name: "Generated image 2" })).toBeVisible({ timeout: 60_000 });
    await expect(header(page).getByRole("link", { name: "6 credits" })).toBeVisible();

    // Baby face takes its two parent photos as one task: 2 credits.
    await page.goto("/nano-banana-lora/baby-face-generator");
    await uploadPhotos(page, [photo("portrait-male-1.jpg"), photo("portrait-female-1.jpg")]);
    await expect(page.getByRole("button", { name: "Create (2 credits)" })).toBeVisible();
  });

  test("a balance below the cost opens the not-enough-credits modal before any bot-check", async ({
    page,
  }) => {
    await spendViaApi(page, 4); // 10 - 8 = 2 credits left
    const checks: string[] = [];
    page.on("request", (r) => {
      if (/\/api\/(botcheck|img\/nano-banana\/submit)/.test(r.url())) checks.push(r.url());
    });
    await page.goto("/nano-banana-lora/inverted-face-filter");
    await expect(header(page).getByRole("link", { name: "2 credits" })).toBeVisible();
    await uploadPhotos(page, [photo("pet-1-cat.png"), photo("object-coffee.png")]);
    await page.getByRole("button", { name: "Create (4 credits)" }).click();
    const modal = page.getByRole("dialog", { name: "Not enough credits" });
    await expect(modal).toBeVisible();
    await expect(modal.getByText("This generation needs 4 credits and your balance is 2.")).toBeVisible();
    await expect(page.getByRole("dialog", { name: "Quick check" })).toHaveCount(0);
    expect(checks).toEqual([]);
  });

  test("closing the bot-check is not a failure: no error, Create is usable again and then goes through", async ({
    page,
  }) => {
    // Hold the check's challenge so the dialog stays open until the user closes it.
    await page.route("**/api/botcheck/challenge**", () => {});
    await page.goto("/nano-banana-lora/inverted-face-filter");
    await uploadPhotos(page, [photo("pet-1-cat.png")]);
    const create = page.getByRole("button", { name: "Create (2 credits)" });
    const check = page.getByRole("dialog", { name: "Quick check" });

    await create.click();
    await expect(check).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(check).toBeHidden();
    await expect(create).toBeEnabled();
    await expect(create).toBeFocused();

    await create.click();
    await expect(check).toBeVisible();
    await check.getByRole("button", { name: "Close" }).click();
    await expect(check).toBeHidden();
    await expect(create).toBeEnabled();
    await page.waitForTimeout(500); // a toast would have appeared by now
    await expect(page.getByText("Verification failed. Please try again.")).toHaveCount(0);

    // The check answers again: the same button creates.
    await page.unroute("**/api/botcheck/challenge**");
    await create.click();
    await expect(page.getByRole("img", { name: "Generated image 1" })).toBeVisible({ timeout: 60_000 });
  });

  test("a check that fails still says so", async ({ page }) => {
    await page.route("**/api/botcheck/challenge**", (route) => route.fulfill({ status: 500, body: "" }));
    await page.goto("/nano-banana-lora/inverted-face-filter");
    await uploadPhotos(page, [photo("pet-1-cat.png")]);
    await page.getByRole("button", { name: "Create (2 credits)" }).click();
    await expect(page.getByText("Verification failed. Please try again.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Create (2 credits)" })).toBeEnabled();
  });

  test("a session revoked elsewhere: the next API answer (401) turns the header to signed out at once", async ({
    page,
    context,
  }) => {
    await page.goto("/nano-banana-lora/inverted-face-filter");
    await expect(header(page).getByRole("link", { name: "10 credits" })).toBeVisible();
    await expect(header(page).getByRole("button", { name: "Sign out" })).toBeVisible();
    // Sign out through the API (the session is deleted on the server), then put the old,
    // now revoked, cookie back: the page still holds it, as a tab does after a revocation.
    const cookies = await context.cookies();
    const origin = new URL(page.url()).origin;
    expect((await page.request.post("/api/auth/sign-out", { data: {}, headers: { origin } })).status()).toBe(
      200,
    );
    await context.addCookies(cookies);

    await page.getByTestId("upload-input").setInputFiles([photo("pet-1-cat.png")]);
    await expect(page.getByText("Please sign in to continue")).toBeVisible();
    await expect(header(page).getByRole("link", { name: "Sign in" })).toBeVisible();
    await expect(header(page).getByRole("button", { name: "Sign out" })).toHaveCount(0);
    await expect(header(page).getByRole("link", { name: /credits/ })).toHaveCount(0);
  });

  test("when a result arrives, focus stays on Create (never lost to the page body)", async ({ page }) => {
    await page.goto("/nano-banana-lora/inverted-face-filter");
    await uploadPhotos(page, [photo("pet-1-cat.png")]);
    const create = page.getByRole("button", { name: "Create (2 credits)" });
    await create.focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("button", { name: "Generating..." })).toBeVisible();
    await expect(page.getByRole("img", { name: "Generated image 1" })).toBeVisible({ timeout: 60_000 });
    await expect(create).toBeFocused();
    expect(await page.evaluate(() => document.activeElement === document.body)).toBe(false);
    // The arrival is said in a polite live region (the toast), not by moving focus.
    await expect(page.getByText("Successfully generated 1 image(s)!")).toBeVisible();
  });

  test("the credit history names effects by their page titles and kinds in the page's language", async ({
    page,
  }) => {
    const origin = new URL(page.url()).origin;
    const up = await page.request.post("/api/upload", {
      headers: { origin },
      multipart: {
        file: { name: "a.png", mimeType: "image/png", buffer: fs.readFileSync(photo("pet-1-cat.png")) },
      },
    });
    const res = await page.request.post("/api/img/nano-banana/submit", {
      data: {
        prompt: "",
        image_urls: [(await up.json()).url],
        num_images: "1",
        turnstileToken: await solveBotCheck(page),
        imageType: "nano-banana-lora-gta-style-filter",
      },
      headers: { "idempotency-key": `ledger-${Date.now()}`, origin },
    });
    expect(res.status()).toBe(200);

    // English first: a visit to a German page may leave a locale cookie behind.
    await page.goto("/account");
    await expect(page.getByRole("cell", { name: "Generation · Crime-Game Poster Style" })).toBeVisible();
    await expect(page.getByRole("cell", { name: "Welcome credits", exact: true })).toBeVisible();

    await page.goto("/de/account");
    const ledger = page.getByRole("region", { name: "Credit-Verlauf" });
    await expect(
      ledger.getByRole("cell", { name: "Generierung · Gangster-Videospiel-Poster" }),
    ).toBeVisible();
    await expect(ledger.getByRole("cell", { name: "Willkommens-Credits", exact: true })).toBeVisible();
    await expect(ledger.getByText("GTA Style Filter")).toHaveCount(0);
    await expect(ledger.getByText("Welcome credits")).toHaveCount(0);
  });

  test("the test checkout names the pack in the page's language and says how many credits", async ({
    page,
  }) => {
    await page.goto("/pricing");
    await page.getByTestId("buy-starter").click();
    await expect(page).toHaveURL(/\/checkout\/test\//);
    await expect(page.getByText("Starter · 40 credits · $4.99")).toBeVisible();
    const checkoutPath = new URL(page.url()).pathname;

    await page.goto(`/de${checkoutPath}`);
    await expect(page.getByText(/^Einsteiger · 40 Credits · 4,99\s\$$/)).toBeVisible();
    await page.getByRole("button", { name: "Bezahlen (Test)" }).click();
    await expect(page).toHaveURL(/\/de\/checkout\/success/);
    await page.goto("/de/account");
    await expect(page.getByRole("cell", { name: "Kauf eines Credit-Pakets · Einsteiger" })).toBeVisible();
  });
});

test("the empty results panel guides the first steps; the example pairs are shown once, in the gallery", async ({
  page,
}) => {
  await page.goto("/nano-banana-lora/pixel-illustration");
  const guide = page.getByRole("heading", { name: "No images yet" });
  await expect(guide).toBeVisible();
  const steps = page.getByRole("list").filter({ hasText: "Upload images" });
  await expect(steps.getByRole("listitem")).toHaveText(["1Upload images", "2Enter prompt", "3Generate"]);
  // One section of examples (the gallery), so one landmark by that name.
  await expect(page.getByRole("region", { name: "Examples" })).toHaveCount(1);
  await expect(page.getByRole("heading", { name: "Examples" })).toHaveCount(1);
  const results = await new AxeBuilder({ page }).withRules(["landmark-unique"]).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.length}`)).toEqual([]);
});
