import fs from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { unzipSync } from "fflate";
import { expect, test, type Page } from "@playwright/test";
import { photo, shot, signUpViaApi, uploadPhotos } from "./helpers";

const EFFECT = "/en/nano-banana-lora/inverted-face-filter";

/** Collects Content-Security-Policy violations of a page (console and DOM events). */
async function watchCsp(page: Page): Promise<string[]> {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content.Security.Policy|Refused to (load|execute|create)/i.test(m.text())) violations.push(m.text());
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`Content Security Policy violation: ${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  return violations;
}

/** Serious or critical accessibility violations of the page as it is now. */
async function axeProblems(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} (${v.nodes.length})`);
}

/** Uploads photos on the mirror effect's page and creates; waits for `count` results. */
async function create(page: Page, photos: string[], count: number): Promise<void> {
  await page.goto(EFFECT);
  await uploadPhotos(page, photos.map(photo));
  await page.getByTestId("create-button").click();
  await expect(page.getByTestId("result-card")).toHaveCount(count, { timeout: 60_000 });
}

test("a result stays on the effect page after a reload, is shared, revoked, and deleted for good from My creations", async ({
  page,
  browser,
}) => {
  const violations = await watchCsp(page);
  await page.goto("/");
  await signUpViaApi(page, "history");
  await create(page, ["portrait-female-1.jpg"], 1);
  const imageUrl = await page.getByRole("img", { name: "Generated image 1" }).getAttribute("src");
  expect(imageUrl).toMatch(/^\/api\/images\//);

  // Reload: the result is still in the results area (from the history API).
  await page.reload();
  await expect(page.getByTestId("result-card")).toHaveCount(1);
  await expect(page.getByRole("img", { name: "Generated image 1" })).toHaveAttribute("src", imageUrl!);

  // My creations, from the header.
  await page.getByTestId("header-history").click();
  await expect(page).toHaveURL(/\/history$/);
  await expect(page.getByRole("heading", { level: 1, name: "My creations" })).toBeVisible();
  const item = page.getByTestId("history-item");
  await expect(item).toHaveCount(1);
  await expect(item.getByTestId("history-effect")).toHaveText("Inverted Face Filter");
  await expect(item.locator("time")).toHaveText(/\d{4}/);
  await shot(page, "desktop-history");
  expect(await axeProblems(page)).toEqual([]);

  // On a phone, in dark mode and in Arabic: right to left, the effect's Arabic title, every
  // action still there.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto("/ar/history");
  await expect(page.locator("html")).toHaveAttribute("dir", "rtl");
  await expect(item.getByTestId("history-effect")).toHaveText("فلتر الوجه المعكوس");
  await expect(item.getByRole("button")).toHaveCount(3);
  await shot(page, "phone-history-ar-dark");
  expect(await axeProblems(page)).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/en/history");

  // Share: opt-in per result; the link works for someone signed out.
  await item.getByRole("button", { name: "Share" }).click();
  const dialog = page.getByRole("dialog", { name: /Share your Inverted Face Filter image/ });
  await dialog.getByRole("button", { name: "Create public link" }).click();
  const link = await dialog.getByTestId("share-link").inputValue();
  expect(link).toMatch(/\/s\/[A-Za-z0-9_-]{32}$/);

  const visitor = await browser.newContext();
  const guest = await visitor.newPage();
  const guestViolations = await watchCsp(guest);
  const shared = await guest.goto(link);
  expect(shared?.status()).toBe(200);
  await expect(guest.getByRole("heading", { level: 1 })).toHaveText("Made with Inverted Face Filter");
  const img = guest.getByTestId("shared-image");
  await expect(img).toBeVisible();
  await expect
    .poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0))
    .toBe(true);
  await expect(guest.locator('meta[name="robots"]')).toHaveAttribute("content", "noindex");
  const ogImage = await guest.locator('meta[property="og:image"]').getAttribute("content");
  expect(ogImage).toMatch(/^http:\/\/localhost:\d+\/api\/share\/[A-Za-z0-9_-]{32}\/image$/);
  await expect(guest.locator('meta[property="og:title"]')).toHaveAttribute(
    "content",
    "Inverted Face Filter, made with photofx",
  );
  expect((await guest.request.get(ogImage!)).status()).toBe(200);
  await expect(guest.getByTestId("share-cta")).toHaveAttribute(
    "href",
    /\/nano-banana-lora\/inverted-face-filter$/,
  );
  await shot(guest, "desktop-share-page");
  expect(await axeProblems(guest)).toEqual([]);
  expect(guestViolations).toEqual([]);

  // Revoked: the page and its image answer 404.
  await dialog.getByRole("button", { name: "Turn off link" }).click();
  await expect(dialog.getByRole("button", { name: "Create public link" })).toBeVisible();
  expect((await guest.goto(link))?.status()).toBe(404);
  expect((await guest.request.get(ogImage!)).status()).toBe(404);
  await visitor.close();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();

  // Delete: confirm, gone from the list, and its file URL answers 404.
  await item.getByRole("button", { name: "Delete" }).click();
  const confirm = page.getByRole("dialog", { name: "Delete this image?" });
  await confirm.getByRole("button", { name: "Delete for good" }).click();
  await expect(page.getByTestId("history-item")).toHaveCount(0);
  await expect(page.getByTestId("history-empty")).toBeVisible();
  expect((await page.request.get(imageUrl!)).status()).toBe(404);

  // And the effect page no longer shows it after a reload.
  await page.goto(EFFECT);
  await expect(page.getByTestId("header-history")).toBeVisible();
  await expect(page.getByTestId("result-card")).toHaveCount(0);
  expect(violations).toEqual([]);
});

test("a two-photo submit downloads as one ZIP of both results, from the effect page and from My creations", async ({
  page,
}) => {
  await page.goto("/");
  await signUpViaApi(page, "history-zip");
  await create(page, ["portrait-female-1.jpg", "pet-1-cat.png"], 2);

  const zipEntries = async (trigger: () => Promise<void>) => {
    const [download] = await Promise.all([page.waitForEvent("download"), trigger()]);
    expect(download.suggestedFilename()).toMatch(/^photofx_inverted-face-filter_\d{8}_\d{6}\.zip$/);
    return Object.keys(unzipSync(new Uint8Array(fs.readFileSync((await download.path())!))));
  };
  const fromEffect = await zipEntries(() => page.getByTestId("batch-zip").click());
  expect(fromEffect).toHaveLength(2);

  await page.goto("/en/history");
  await expect(page.getByTestId("history-item")).toHaveCount(2);
  const fromHistory = await zipEntries(() => page.getByTestId("history-zip").first().click());
  expect(fromHistory.sort()).toEqual(fromEffect.sort());
});

test("My creations sends a signed-out visitor to sign in, and reads right to left in Arabic", async ({
  page,
}) => {
  await page.goto("/en/history");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fhistory$/);

  await signUpViaApi(page, "history-ar");
  await page.goto("/ar/history");
  await expect(page.locator("html")).toHaveAttribute("dir", "rtl");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("إبداعاتي");
  await expect(page.getByTestId("history-empty")).toBeVisible();
  // The filter is reachable from the keyboard and lists the effects in Arabic.
  await page.getByTestId("history-filter").focus();
  await expect(page.getByTestId("history-filter")).toBeFocused();
  await expect(page.getByTestId("history-filter").locator("option")).toHaveCount(23);
});

test("with originals kept, a result is compared with its photo and re-run with the same settings for 2 credits", async ({
  page,
}) => {
  await page.goto("/");
  await signUpViaApi(page, "rerun");
  await page.goto("/account");
  // A switch that turns on once the server saved the choice.
  const keep = page.getByTestId("keep-originals");
  await expect(keep).toBeEnabled();
  await keep.click();
  await expect(keep).toBeChecked();
  await expect(
    page.getByText("Your original photos will be kept for 30 days after each generation."),
  ).toBeVisible();

  await create(page, ["portrait-female-1.jpg"], 1);
  await expect(page.getByTestId("header-balance")).toHaveText("8 credits");
  await page.goto("/history");
  const item = page.getByTestId("history-item");
  await expect(item).toHaveCount(1);

  await item.getByTestId("compare-original").click();
  const compare = page.getByRole("dialog", { name: "Before and after" });
  await expect(compare.getByTestId("compare-before")).toBeVisible();
  await compare.getByRole("button", { name: "Close" }).click();

  // A free user passes the bot-check first; then the same request is submitted again.
  await item.getByTestId("rerun-result").click();
  await expect(page.getByText("Re-run started. The new image will appear with your creations.")).toBeVisible({
    timeout: 30_000,
  });
  await expect(page.getByTestId("header-balance")).toHaveText("6 credits");
  await expect
    .poll(
      async () =>
        ((await (await page.request.get("/api/images")).json()) as { images: unknown[] }).images.length,
      {
        timeout: 60_000,
      },
    )
    .toBe(2);
});
