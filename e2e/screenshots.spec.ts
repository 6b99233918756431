import fs from "node:fs";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";

/**
 * The pages a visitor judges us by, at a desktop and a phone viewport, in light and dark:
 * full-page screenshots into screenshots/pages/ (git-ignored: each run makes them, for a
 * person to look at), and the layout facts a user relies on asserted on the same render.
 */

const SHOTS = path.resolve(__dirname, "../screenshots/pages");

const PAGES = [
  { name: "home", path: "/" },
  { name: "list", path: "/nano-banana-lora" },
  { name: "effect", path: "/nano-banana-lora/pixel-illustration" },
  { name: "pricing", path: "/pricing" },
] as const;

const VIEWPORTS = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
} as const;

/** Scrolls through the page so lazy images load, then waits until every image has. */
async function settle(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle");
  await page.evaluate(async () => {
    for (let y = 0; y < document.scrollingElement!.scrollHeight; y += window.innerHeight / 2) {
      window.scrollTo(0, y);
      await new Promise((r) => setTimeout(r, 60));
    }
    window.scrollTo(0, 0);
  });
  await expect
    .poll(() =>
      page.evaluate(() =>
        [...document.images].filter((img) => !(img.complete && img.naturalWidth > 0)).map((i) => i.src),
      ),
    )
    .toEqual([]);
}

/** Nothing wider than the screen: no sideways scrolling, on the page or inside its body. */
async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const { scrollWidth, innerWidth, offenders } = await page.evaluate(() => {
    const width = window.innerWidth;
    const off: string[] = [];
    for (const el of document.body.querySelectorAll<HTMLElement>("*")) {
      const r = el.getBoundingClientRect();
      // Skip what is deliberately out of view: hidden, screen-reader-only, or inside a
      // container that clips or scrolls it (a row of chips scrolls sideways on purpose; the
      // container itself is checked).
      if (r.width === 0 || getComputedStyle(el).visibility === "hidden") continue;
      if (el.closest(".sr-only, [hidden]")) continue;
      let clipped = false;
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement)
        if (getComputedStyle(a).overflowX !== "visible") clipped = true;
      if (clipped) continue;
      if (r.right > width + 1 || r.left < -1)
        off.push(
          `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""} ${Math.round(r.left)}..${Math.round(r.right)}`,
        );
    }
    return {
      scrollWidth: document.scrollingElement!.scrollWidth,
      innerWidth: width,
      offenders: off.slice(0, 5),
    };
  });
  expect(offenders, "elements sticking out of the screen").toEqual([]);
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

/** The footer sits at the bottom of the screen or below it, never mid-screen. */
async function expectFooterAtBottom(page: Page): Promise<void> {
  const box = await page.getByRole("contentinfo").boundingBox();
  const viewport = page.viewportSize()!;
  expect(box!.y + box!.height).toBeGreaterThanOrEqual(viewport.height - 1);
}

/** Cards side by side in a grid are equally tall, whatever the length of their titles. */
async function expectEvenRows(page: Page, cards: ReturnType<Page["locator"]>): Promise<void> {
  const boxes = (await Promise.all((await cards.all()).map((c) => c.boundingBox()))).filter(
    (b) => b !== null,
  );
  expect(boxes.length).toBeGreaterThan(1);
  const rows = new Map<number, number[]>();
  for (const box of boxes) rows.set(Math.round(box.y), [...(rows.get(Math.round(box.y)) ?? []), box.height]);
  for (const [top, heights] of rows)
    expect(Math.max(...heights) - Math.min(...heights), `cards in the row at y=${top}`).toBeLessThan(1);
}

/** The body's background brightness, 0 (black) to 1 (white), whatever colour syntax it uses. */
const luminance = (page: Page) =>
  page.evaluate(() => {
    const ctx = document.createElement("canvas").getContext("2d")!;
    ctx.fillStyle = getComputedStyle(document.body).backgroundColor;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
    return (0.2126 * r! + 0.7152 * g! + 0.0722 * b!) / 255;
  });

for (const [device, use] of Object.entries(VIEWPORTS)) {
  test.describe(`${device} (${use.viewport.width}x${use.viewport.height})`, () => {
    test.use(use);

    for (const colorScheme of ["light", "dark"] as const) {
      for (const { name, path: url } of PAGES) {
        test(`${name}, ${colorScheme}: fits the screen, and its main action is in reach`, async ({
          page,
        }) => {
          await page.emulateMedia({ colorScheme });
          await page.goto(url);
          await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
          await settle(page);

          // The colour scheme is the one asked for (the body follows prefers-color-scheme).
          if (colorScheme === "dark") expect(await luminance(page)).toBeLessThan(0.2);
          else expect(await luminance(page)).toBeGreaterThan(0.8);

          await expectNoHorizontalOverflow(page);
          await expectFooterAtBottom(page);
          const first = page.viewportSize()!.height;
          const inFirstScreen = async (box: { y: number; height: number } | null) => {
            expect(box).not.toBeNull();
            expect(box!.y + box!.height).toBeLessThanOrEqual(first);
          };

          if (name === "home") {
            // The way in: the explore button, on the first screen.
            await inFirstScreen(await page.getByRole("link", { name: "Explore all effects" }).boundingBox());
            await expectEvenRows(page, page.getByTestId("featured-effects").getByTestId("effect-card"));
          }
          if (name === "list") {
            // The search box and the first card start on the first screen.
            await inFirstScreen(await page.getByRole("searchbox", { name: "Search effects" }).boundingBox());
            const card = await page.getByTestId("effect-card").first().boundingBox();
            expect(card!.y).toBeLessThan(first);
            await expectEvenRows(page, page.getByTestId("effect-card"));
          }
          if (name === "effect") {
            // Upload and Create, the page's point, without scrolling (on a phone too).
            await inFirstScreen(await page.getByTestId("upload-area").boundingBox());
            await inFirstScreen(await page.getByTestId("create-button").boundingBox());
          }
          if (name === "pricing" && device === "desktop") {
            // The packs stand in one row, equally tall, their buy buttons on one line.
            const packs = page.locator("[data-testid^='pack-']");
            await expectEvenRows(page, packs);
            const buttons = await Promise.all(
              (await packs.all()).map((p) => p.getByRole("button").boundingBox()),
            );
            expect(new Set(buttons.map((b) => Math.round(b!.y))).size).toBe(1);
          }

          fs.mkdirSync(SHOTS, { recursive: true });
          await page.screenshot({
            path: path.join(SHOTS, `${device}-${name}-${colorScheme}.png`),
            fullPage: true,
          });
        });
      }
    }

    // Arabic reads right to left: the header starts at the right, and nothing spills over.
    for (const { name, path: url } of PAGES.filter((p) => p.name === "home" || p.name === "effect")) {
      test(`${name} in Arabic: right to left, and fits the screen`, async ({ page }) => {
        await page.goto(`/ar${url === "/" ? "" : url}`);
        await expect(page.locator("html")).toHaveAttribute("dir", "rtl");
        await settle(page);
        await expectNoHorizontalOverflow(page);
        if (name === "home") await expectEvenRows(page, page.getByTestId("effect-card"));
        const brand = await page.getByRole("banner").getByRole("link", { name: "photofx" }).boundingBox();
        expect(brand!.x).toBeGreaterThan(page.viewportSize()!.width / 2);
        fs.mkdirSync(SHOTS, { recursive: true });
        await page.screenshot({ path: path.join(SHOTS, `${device}-${name}-ar.png`), fullPage: true });
      });
    }
  });
}
