import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";

const LOCALES = ["en", "ar", "de", "es", "fr", "it", "ja", "ko", "pt", "tw", "vi", "zh"] as const;
const ROOT = path.resolve(__dirname, "..");
const EFFECT = "pixel-illustration";
const pathFor = (locale: string, p: string) => (locale === "en" ? p : `/${locale}${p}`);

function strings(obj: unknown, out: string[] = []): string[] {
  if (typeof obj === "string") out.push(obj);
  else if (obj && typeof obj === "object") for (const v of Object.values(obj)) strings(v, out);
  return out;
}
function catalogue(locale: string): string[] {
  const dir = path.join(ROOT, "messages", locale);
  const ui = fs
    .readdirSync(dir)
    .flatMap((f) => strings(JSON.parse(fs.readFileSync(path.join(dir, f), "utf8"))));
  const copy = JSON.parse(
    fs.readFileSync(path.join(ROOT, "src/i18n/effect-copy", locale, `${EFFECT}.json`), "utf8"),
  );
  return [...ui, ...strings(copy)];
}
/** Plain text of a message: ICU arguments and tags removed. */
const plain = (s: string) =>
  s
    .replace(/<[^>]+>/g, "")
    .replace(/\{[^{}]*\}/g, "")
    .trim();

const english = catalogue("en");

for (const locale of LOCALES) {
  test(`the effect page in ${locale}: translated, no raw keys, no English leftovers`, async ({ page }) => {
    const res = await page.goto(pathFor(locale, `/nano-banana-lora/${EFFECT}`));
    expect(res?.status()).toBe(200);
    const html = page.locator("html");
    await expect(html).toHaveAttribute("dir", locale === "ar" ? "rtl" : "ltr");
    const text = await page.locator("body").innerText();
    // Raw message keys look like "effect.createCost" or "upload.dropHere".
    expect(text).not.toMatch(
      /\b(common|effect|upload|results|modals|auth|account|pricing|errors|home|list)\.[a-z][A-Za-z_]+\b/,
    );
    if (locale === "en") return;
    const own = new Set(catalogue(locale));
    const leftovers = english
      .map(plain)
      // Only sentences the locale translated differently (a kept brand name is not a leftover).
      .filter(
        (s) => s.length >= 12 && s.includes(" ") && !own.has(s) && ![...own].some((o) => plain(o) === s),
      )
      .filter((s) => text.includes(s));
    expect(leftovers).toEqual([]);
  });
}

test("the Arabic page is right to left, with the form panel on the right", async ({ page }) => {
  await page.goto(`/ar/nano-banana-lora/${EFFECT}`);
  await expect(page.locator("html")).toHaveAttribute("lang", "ar");
  await expect(page.locator("html")).toHaveAttribute("dir", "rtl");
  const form = await page.locator("#form-title").boundingBox();
  const results = await page.locator("#results-title").boundingBox();
  expect(form!.x).toBeGreaterThan(results!.x);
  await page.screenshot({ path: path.join(ROOT, "screenshots", "desktop-effect-ar.png"), fullPage: true });
});

test("the locale switcher keeps the current page", async ({ page }) => {
  await page.goto(`/nano-banana-lora/${EFFECT}`);
  await page.getByTestId("locale-switcher").selectOption("de");
  await expect(page).toHaveURL(new RegExp(`/de/nano-banana-lora/${EFFECT}$`));
  await page.getByTestId("locale-switcher").selectOption("en");
  await expect(page).toHaveURL(new RegExp(`/nano-banana-lora/${EFFECT}$`));
  await expect(page).not.toHaveURL(/\/en\//);
});

test("a first visit follows Accept-Language", async ({ browser }) => {
  const context = await browser.newContext({ locale: "ja-JP" });
  const page = await context.newPage();
  await page.goto("/");
  await expect(page).toHaveURL(/\/ja$/);
  await expect(page.locator("html")).toHaveAttribute("lang", "ja");
  await context.close();
});

test("hreflang alternates list all 12 locales and point at real pages; JSON-LD is valid", async ({
  page,
  request,
}) => {
  await page.goto(`/fr/nano-banana-lora/${EFFECT}`);
  const links = await page
    .locator('link[rel="alternate"][hreflang]')
    .evaluateAll((els) =>
      els.map((e) => ({ lang: e.getAttribute("hreflang"), href: e.getAttribute("href") })),
    );
  const langs = links.map((l) => l.lang).sort();
  expect(langs).toEqual(
    [
      "ar",
      "de",
      "en",
      "es",
      "fr",
      "it",
      "ja",
      "ko",
      "pt",
      "vi",
      "x-default",
      "zh-Hans-CN",
      "zh-Hant-TW",
    ].sort(),
  );
  for (const l of links) {
    const url = new URL(l.href!);
    const res = await request.get(url.pathname);
    expect(res.status(), l.href!).toBe(200);
  }
  const canonical = await page.locator('link[rel="canonical"]').getAttribute("href");
  expect(new URL(canonical!).pathname).toBe(`/fr/nano-banana-lora/${EFFECT}`);
  const og = await page.locator('meta[property="og:image"]').getAttribute("content");
  expect(og).toMatch(/\/examples\/pixel-illustration\/1-after\.webp$/);

  const blocks = await page.locator('script[type="application/ld+json"]').allTextContents();
  const data = blocks.flatMap((b) => JSON.parse(b)) as Array<Record<string, unknown>>;
  const crumbs = data.find((d) => d["@type"] === "BreadcrumbList") as {
    itemListElement: Array<{ "@type": string; position: number; name: string; item: string }>;
  };
  expect(crumbs.itemListElement.map((i) => i.position)).toEqual([1, 2, 3]);
  for (const i of crumbs.itemListElement) {
    expect(i["@type"]).toBe("ListItem");
    expect(i.name.length).toBeGreaterThan(0);
    expect((await request.get(new URL(i.item).pathname)).status()).toBe(200);
  }
  const faq = data.find((d) => d["@type"] === "FAQPage") as {
    "@context": string;
    mainEntity: Array<{ "@type": string; name: string; acceptedAnswer: { "@type": string; text: string } }>;
  };
  expect(faq["@context"]).toBe("https://schema.org");
  expect(faq.mainEntity.length).toBeGreaterThanOrEqual(4);
  expect(faq.mainEntity.length).toBeLessThanOrEqual(6);
  for (const q of faq.mainEntity) {
    expect(q["@type"]).toBe("Question");
    expect(q.acceptedAnswer["@type"]).toBe("Answer");
    expect(q.name && q.acceptedAnswer.text).toBeTruthy();
  }
  // Every question of the page's FAQ is in the structured data.
  const shown = await page.locator("#faq-heading + div button").allInnerTexts();
  expect(shown.map((s) => s.replace(/▾/g, "").trim())).toEqual(faq.mainEntity.map((q) => q.name));
});

test("sitemap.xml and robots.txt describe the public pages", async ({ request, baseURL }) => {
  const sitemap = await (await request.get("/sitemap.xml")).text();
  // The running server's origin (APP_URL at run time), not the one the build saw.
  expect(sitemap).toContain(`<loc>${baseURL}/</loc>`);
  expect(sitemap).toContain("/de/nano-banana-lora/pixel-illustration");
  expect(sitemap).toContain("/nano-banana-lora/linkedIn-profile-photo-generator");
  expect(sitemap).toContain("/ar/privacy");
  expect(sitemap).toContain("/tw/contact");
  expect(sitemap.match(/<url>/g)).toHaveLength(12 * 28);
  const robots = await (await request.get("/robots.txt")).text();
  expect(robots).toMatch(/Disallow: \/api\//);
  expect(robots).toContain(`Sitemap: ${baseURL}/sitemap.xml`); // the running origin, too
});
