import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { shot } from "./helpers";

// The browser tests run on the default pricing (src/config/pricing.ts) with the test checkout
// on (playwright.config.ts). Each image costs 2 credits, so:
//   Starter: $4.99 for 40 credits = 20 images  -> $0.2495 -> "$0.25" per image
//   Creator: $14.99 for 200 credits = 100 images -> $0.1499 -> "$0.15" per image (best value)
//   Pro:     $12.99 a month for 300 credits = 150 images -> $0.0866 -> "$0.09" per image
const PER_IMAGE = {
  starter: "≈ $0.25 per image (20 images)",
  creator: "≈ $0.15 per image (100 images)",
  pro: "≈ $0.09 per image (150 images a month)",
};

test("every pack and plan card shows its cost per image, and the clearly cheapest pack is marked", async ({
  page,
}) => {
  await page.goto("/pricing");
  for (const [id, text] of Object.entries(PER_IMAGE))
    await expect(page.getByTestId(`per-image-${id}`), id).toHaveText(text);
  await expect(page.getByTestId("best-value")).toHaveCount(1);
  await expect(page.getByTestId("pack-creator").getByTestId("best-value")).toHaveText("Best value");

  // The page's locale formats the figure: German puts the currency sign after it.
  await page.goto("/de/pricing");
  await expect(page.getByTestId("per-image-starter")).toHaveText(/^≈ 0,25\s\$ pro Bild \(20 Bilder\)$/);
});

test("the FAQ opens with the keyboard, tells the test-checkout truth and matches its JSON-LD", async ({
  page,
}) => {
  const violations: string[] = [];
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      console.log(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  page.on("console", (m) => {
    if (/CSP violation|Content.Security.Policy/i.test(m.text())) violations.push(m.text());
  });
  await page.goto("/pricing");
  const faq = page.getByTestId("pricing-faq");
  await expect(faq.getByRole("heading", { name: "Frequently asked questions" })).toBeVisible();
  const items = faq.locator("details");
  const count = await items.count();
  expect(count).toBeGreaterThanOrEqual(4);
  expect(count).toBeLessThanOrEqual(6);

  // Closed at first; Enter on the focused question opens it, Tab reaches the next one, Space opens it.
  const cost = page.getByTestId("faq-cost");
  const costAnswer = cost.getByText("Each image costs 2 credits, whichever effect you choose.");
  await expect(costAnswer).toBeHidden();
  await cost.locator("summary").focus();
  await page.keyboard.press("Enter");
  await expect(cost).toHaveAttribute("open", "");
  await expect(costAnswer).toBeVisible();
  await expect(cost).toContainText("Baby Face Generator and Hug My Younger Self");
  await page.keyboard.press("Tab");
  const expire = page.getByTestId("faq-expire");
  await expect(expire.locator("summary")).toBeFocused();
  await page.keyboard.press(" ");
  await expect(expire).toHaveAttribute("open", "");
  await expect(expire.getByText(/^No\. Credits do not expire/)).toBeVisible();
  // Enter again closes it.
  await page.keyboard.press("Enter");
  await expect(expire).not.toHaveAttribute("open", "");

  // With the test checkout on, the cancel answer says no real payment is taken.
  const cancel = page.getByTestId("faq-cancel");
  await cancel.locator("summary").focus();
  await page.keyboard.press("Enter");
  await expect(cancel).toContainText("no real payment is taken");
  await expect(cancel).not.toContainText("period you have paid for");
  await expect(page.getByTestId("faq-subscribers")).toContainText("up to 10 images at a time instead of 2");
  await shot(page, "desktop-pricing-faq");

  // The FAQPage JSON-LD names the same questions, in the same order.
  const ld = await page
    .locator('script[type="application/ld+json"]')
    .evaluateAll((nodes) => nodes.map((n) => JSON.parse(n.textContent ?? "null")));
  const faqPage = ld.find((d) => d?.["@type"] === "FAQPage");
  expect(faqPage).toBeTruthy();
  const questions = await items.locator("summary").allTextContents();
  expect(
    (faqPage.mainEntity as Array<{ name: string; acceptedAnswer: { text: string } }>).map((q) => q.name),
  ).toEqual(questions.map((q) => q.replace(/▾$/, "").trim()));
  expect(faqPage.mainEntity[0].acceptedAnswer.text).toContain("Each image costs 2 credits");
  expect(violations).toEqual([]);
});

for (const colorScheme of ["light", "dark"] as const) {
  test(`the pricing page (${colorScheme}, FAQ open) has no accessibility violations`, async ({ page }) => {
    await page.emulateMedia({ colorScheme });
    await page.goto("/pricing");
    await page.waitForLoadState("networkidle");
    // Open every answer so its text is checked too.
    await page.locator("[data-testid=pricing-faq] details").evaluateAll((nodes) => {
      for (const n of nodes) (n as HTMLDetailsElement).open = true;
    });
    const results = await new AxeBuilder({ page }).analyze();
    expect(results.violations.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.length})`)).toEqual([]);
  });
}
