import { devices, expect, test } from "@playwright/test";
import { shot, signUpViaApi } from "./helpers";

/**
 * The front door: the home page's before/after pairs, how-it-works and trust claims (the
 * e2e server runs on the embedded defaults: local engine, local disk, no third party), the
 * list's search and categories, the footer's legal pages, and the phone header's menu.
 */

test("the home page shows real before/after pairs, how it works, and only claims the configuration makes true", async ({
  page,
}) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();

  // Pairs rendered by our engine: each a before and an after image that actually loaded.
  const pairs = page.getByTestId("showcase-pair");
  expect(await pairs.count()).toBeGreaterThanOrEqual(2);
  const first = pairs.first();
  await first.scrollIntoViewIfNeeded();
  const images = first.locator("img");
  await expect(images).toHaveCount(2);
  await expect(images.nth(0)).toHaveAttribute("alt", /original/);
  await expect(images.nth(1)).toHaveAttribute("alt", /result/);
  for (const img of await images.all()) {
    await expect
      .poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0))
      .toBe(true);
  }
  await expect(first).toContainText("Made by photofx's built-in engine");
  await expect(page.getByTestId("hero-pair").locator("img")).toHaveCount(2);

  // How it works: three numbered steps.
  const how = page.getByTestId("how-it-works");
  await expect(how.getByRole("heading", { name: "How it works" })).toBeVisible();
  await expect(how.getByRole("listitem")).toHaveCount(3);

  // Local engine, local disk: the strongest claim, and not the weaker one in its place.
  const claims = page.getByTestId("trust-claims");
  await expect(claims).toContainText("Your photos never leave this server");
  await expect(claims).not.toContainText("third-party");
  await expect(claims).toContainText("Originals deleted after processing");
  await expect(claims).toContainText("2 credits per image");
  await expect(claims).toContainText("No subscription needed");

  // Hot and new effects first, each card with its before/after pair.
  const featured = page.getByTestId("featured-effects").getByTestId("effect-card");
  expect(await featured.count()).toBeGreaterThanOrEqual(4);
  await expect(featured.first()).toContainText("Hot");
  await expect(featured.first().getByTestId("card-before")).toHaveCount(1);
  await shot(page, "front-home");
});

test("an effect card reveals its original on keyboard focus, without moving anything", async ({ page }) => {
  await page.goto("/nano-banana-lora");
  // The header has settled (signed out: its sign-in link shows).
  await expect(page.getByRole("banner").getByRole("link", { name: "Sign in" })).toBeVisible();
  const card = page.getByTestId("effect-card").first();
  const before = card.getByTestId("card-before");
  const box = await card.boundingBox();
  const clipOf = () => before.evaluate((el) => getComputedStyle(el).clipPath);
  const atRest = await clipOf();
  expect(atRest).toMatch(/inset\(0(px)? 72%/);
  // Keyboard focus: from the search box (the last control before the grid), Tab.
  await page.getByTestId("effect-search").focus();
  await page.keyboard.press("Tab");
  await expect(card).toBeFocused();
  await expect.poll(clipOf).toMatch(/^inset\(0(px)?\)$/);
  expect(await card.boundingBox()).toEqual(box);
  // Below the fold the images wait: the last card's are lazy.
  await expect(page.getByTestId("effect-card").last().locator("img").first()).toHaveAttribute(
    "loading",
    "lazy",
  );
});

test("the list filters by category and by a search over translated titles and descriptions", async ({
  page,
}) => {
  await page.goto("/nano-banana-lora");
  const cards = page.getByTestId("effect-card");
  const count = page.getByTestId("effect-count");
  await expect(cards).toHaveCount(22);
  await expect(count).toHaveText("22 effects");
  await expect(count).toHaveAttribute("aria-live", "polite");
  // The later cards' pictures come once the page has loaded: the last card's too.
  const last = cards.last().locator("img").first();
  await last.scrollIntoViewIfNeeded();
  await expect
    .poll(() => last.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0))
    .toBe(true);

  await page.getByTestId("category-restore").click();
  await expect(page.getByTestId("category-restore")).toHaveAttribute("aria-current", "page");
  await expect(page).toHaveURL(/category=restore/);
  await expect(count).toHaveText("3 effects");
  await expect(page.locator('[data-effect="image-restoration"]')).toHaveCount(1);
  await expect(page.locator('[data-effect="stylized-stickers"]')).toHaveCount(0);

  // The address is shareable: the same filter renders on the server.
  await page.reload();
  await expect(count).toHaveText("3 effects");

  await page.getByTestId("category-all").click();
  const search = page.getByRole("searchbox", { name: "Search effects" });
  await search.fill("watermark");
  await expect(count).toHaveText("1 effect");
  await expect(cards).toHaveCount(1);
  await expect(cards.first()).toHaveAttribute("data-effect", "watermark-remover");
  await search.fill("no effect is called this");
  await expect(count).toHaveText("No effects found");
  await page.getByRole("button", { name: "Show all effects" }).click();
  await expect(cards).toHaveCount(22);

  // In another language the search reads that language's copy.
  await page.goto("/de/nano-banana-lora");
  await page.getByRole("searchbox", { name: "Effekte suchen" }).fill("Wasserzeichen");
  await expect(page.getByTestId("effect-count")).toHaveText("1 Effekt");

  // The home page's category links open the list filtered (in English again: /de set the
  // language cookie, so "/" would now redirect to German).
  await page.goto("/en");
  await page.getByRole("link", { name: /^People/ }).click();
  await expect(page).toHaveURL(/nano-banana-lora\?category=people/);
  await expect(page.getByTestId("category-people")).toHaveAttribute("aria-current", "page");
});

test("the front pages format their messages without creating an Intl.NumberFormat while loading", async ({
  page,
}) => {
  // The first Intl.NumberFormat of a page costs 20-40 ms of main thread (ICU's number data),
  // four times that on Lighthouse's phone: a long task in every visit. Messages are compiled
  // at build time and the pages' counts are plain arguments, so loading creates none.
  await page.addInitScript(() => {
    const created: string[] = [];
    (window as unknown as { __numberFormats: string[] }).__numberFormats = created;
    const Original = Intl.NumberFormat;
    const supportedLocalesOf = Original.supportedLocalesOf.bind(Original);
    const Traced = new Proxy(Original, {
      construct(target, args) {
        created.push(String(new Error().stack));
        return new target(...(args as ConstructorParameters<typeof Intl.NumberFormat>));
      },
    });
    Traced.supportedLocalesOf = (...args: Parameters<typeof Intl.NumberFormat.supportedLocalesOf>) => {
      created.push(`supportedLocalesOf ${String(new Error().stack)}`);
      return supportedLocalesOf(...args);
    };
    Intl.NumberFormat = Traced;
  });
  for (const path of [
    "/en",
    "/en/nano-banana-lora",
    "/en/nano-banana-lora/pixel-illustration",
    "/ar/nano-banana-lora",
  ]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.waitForLoadState("networkidle");
    const created = await page.evaluate(
      () => (window as unknown as { __numberFormats: string[] }).__numberFormats,
    );
    expect(created, `${path} created an Intl.NumberFormat while loading`).toEqual([]);
  }
  // The count still follows the filter (now formatted in the browser).
  await page.goto("/en/nano-banana-lora");
  await page.getByRole("searchbox", { name: "Search effects" }).fill("watermark");
  await expect(page.getByTestId("effect-count")).toHaveText("1 effect");
});

test("the footer opens the privacy policy, the terms and the contact page", async ({ page }) => {
  await page.goto("/");
  const footer = page.getByRole("contentinfo");

  await footer.getByRole("link", { name: "Privacy policy" }).click();
  await expect(page).toHaveURL(/\/privacy$/);
  await expect(page.getByRole("heading", { level: 1, name: "Privacy policy" })).toBeVisible();
  // The e2e server runs the built-in engine on local disk: only those are named.
  const processors = page.getByTestId("privacy-processors").getByRole("listitem");
  await expect(processors).toHaveCount(2);
  await expect(page.getByTestId("privacy-processors")).toContainText("built-in engine");
  await expect(page.getByTestId("privacy-processors")).not.toContainText(
    /fal\.ai|Gemini|OpenAI|Replicate|S3/,
  );
  await expect(page.getByTestId("privacy-others")).toHaveText("No other service receives your data.");
  await expect(page.getByText(/deleted as soon as their images are made/)).toBeVisible();
  await expect(page.getByRole("link", { name: "support@photofx.local" })).toHaveAttribute(
    "href",
    "mailto:support@photofx.local",
  );

  await page.getByRole("contentinfo").getByRole("link", { name: "Terms of use" }).click();
  await expect(page).toHaveURL(/\/terms$/);
  await expect(page.getByRole("heading", { level: 1, name: "Terms of use" })).toBeVisible();
  await expect(page.getByText(/Each image costs 2 credits/)).toBeVisible();

  await page.getByRole("contentinfo").getByRole("link", { name: "Contact" }).click();
  await expect(page).toHaveURL(/\/contact$/);
  await expect(page.getByTestId("support-email")).toHaveText("support@photofx.local");

  // Translated: the French footer leads to the French policy.
  await page.goto("/fr");
  await page.getByRole("contentinfo").getByRole("link", { name: "Politique de confidentialité" }).click();
  await expect(page).toHaveURL(/\/fr\/privacy$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Politique de confidentialité");
});

// A phone's context (the browser itself stays the configured chromium).
const { defaultBrowserType: _browser, ...pixel7 } = devices["Pixel 7"];

test.describe("on a phone", () => {
  test.use(pixel7);

  test("the header is one row and its menu opens and closes with the keyboard", async ({ page }) => {
    await page.goto("/");
    await signUpViaApi(page, "menu");
    await page.goto("/");
    const button = page.getByTestId("menu-button");
    const balance = page.getByTestId("header-balance");
    await expect(balance).toHaveText("10 credits");
    // One row: the brand, the balance and the menu button share a line.
    const [brandBox, balanceBox, buttonBox] = await Promise.all([
      page.getByRole("banner").getByRole("link", { name: "photofx" }).boundingBox(),
      balance.boundingBox(),
      button.boundingBox(),
    ]);
    for (const box of [balanceBox!, buttonBox!]) {
      expect(Math.abs(box.y + box.height / 2 - (brandBox!.y + brandBox!.height / 2))).toBeLessThan(8);
    }
    await expect(page.getByTestId("header-history")).toBeHidden();
    await expect(button).toHaveAttribute("aria-expanded", "false");

    // Keyboard: Enter opens it and focuses its first link; Escape closes it and returns focus.
    await button.focus();
    await page.keyboard.press("Enter");
    await expect(button).toHaveAttribute("aria-expanded", "true");
    const menu = page.getByTestId("site-menu");
    await expect(menu.getByRole("link", { name: "Nano Banana LoRA" })).toBeFocused();
    for (const name of ["Pricing", "My creations", "Account"]) {
      await expect(menu.getByRole("link", { name })).toBeVisible();
    }
    await expect(menu.getByRole("button", { name: "Sign out" })).toBeVisible();
    await expect(menu.getByTestId("locale-switcher")).toBeVisible();
    await shot(page, "front-phone-menu");
    await page.keyboard.press("Escape");
    await expect(button).toHaveAttribute("aria-expanded", "false");
    await expect(menu).toBeHidden();
    await expect(button).toBeFocused();

    // A link in the menu navigates and closes it.
    await page.keyboard.press("Enter");
    await menu.getByRole("link", { name: "My creations" }).click();
    await expect(page).toHaveURL(/\/history$/);
    await expect(button).toHaveAttribute("aria-expanded", "false");
  });
});
