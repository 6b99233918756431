import { expect, test } from "@playwright/test";
import { shot, signUpViaApi } from "./helpers";

test("a subscriber sees their plan marked on the pricing page, cannot buy it twice, and cancels at period end", async ({
  page,
}) => {
  await page.goto("/");
  await signUpViaApi(page, "subscription");

  // Buy Pro in the test checkout (labelled test mode on both pages).
  await page.goto("/pricing");
  await expect(page.getByTestId("test-mode")).toBeVisible();
  await page.getByTestId("buy-pro").click();
  await expect(page).toHaveURL(/\/checkout\/test\//);
  await expect(page.getByText("Test mode: this is not a real payment")).toBeVisible();
  await page.getByRole("button", { name: "Pay (test)" }).click();
  await expect(page.getByTestId("header-balance")).toHaveText("310 credits");

  // The pricing page marks it current, with its renewal date, and offers no second purchase.
  await page.goto("/pricing");
  await expect(page.getByTestId("test-mode")).toBeVisible();
  const current = page.getByTestId("current-plan-pro");
  await expect(current).toBeVisible();
  await expect(current.getByText("Current plan")).toBeVisible();
  await expect(page.getByTestId("current-plan-date")).toHaveText(/^Renews on /);
  await expect(page.getByTestId("buy-pro")).toHaveCount(0);
  // Packs are still for sale.
  await expect(page.getByTestId("buy-starter")).toBeVisible();
  await shot(page, "desktop-pricing-current-plan");

  // A second checkout forced from the page is refused by the server, with nothing to pay.
  const forced = await page.evaluate(async () => {
    const res = await fetch("/api/checkout", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ productId: "pro" }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  });
  expect(forced.status).toBe(409);
  expect(forced.body).toMatchObject({ code: "ALREADY_SUBSCRIBED", messageKey: "alreadySubscribed" });
  await page.reload();
  await expect(page.getByTestId("header-balance")).toHaveText("310 credits");

  // The account page: plan, status, renewal date, test mode; cancel at period end.
  await page.goto("/account");
  const section = page.getByTestId("subscription-section");
  await expect(section.getByTestId("account-plan")).toContainText("Pro plan");
  await expect(section.getByTestId("subscription-status")).toHaveText("Active");
  await expect(section.getByTestId("subscription-date")).toHaveText(/^Renews on /);
  const renewal = (await section.getByTestId("subscription-date").textContent())!.replace("Renews on ", "");
  await expect(section.getByTestId("subscription-test-mode")).toBeVisible();
  await expect(section.getByTestId("subscription-manage-billing")).toHaveCount(0);
  await section.getByTestId("subscription-cancel").click();
  await expect(section.getByText(`It stays until ${renewal}, then ends.`)).toBeVisible();
  await section.getByTestId("subscription-cancel-confirm").click();
  await expect(section.getByTestId("subscription-status")).toHaveText("Cancelled");
  await expect(section.getByTestId("subscription-date")).toHaveText(`Ends on ${renewal}`);
  await expect(section.getByTestId("subscription-resume")).toBeVisible();
  await shot(page, "desktop-account-subscription-cancelled");

  // The pricing page now shows the end date, still no second purchase.
  await page.goto("/pricing");
  await expect(page.getByTestId("current-plan-date")).toHaveText(`Ends on ${renewal}`);
  await expect(page.getByTestId("buy-pro")).toHaveCount(0);

  // Resume before the end date.
  await page.goto("/account");
  await section.getByTestId("subscription-resume").click();
  await expect(section.getByTestId("subscription-date")).toHaveText(`Renews on ${renewal}`);
  await expect(section.getByTestId("subscription-cancel")).toBeVisible();
});
