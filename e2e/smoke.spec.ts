import { expect, test } from "@playwright/test";

test("the home page lists the effects and the API answers on the same server", async ({ page, request }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "photofx" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Inverted Face Filter" })).toBeVisible();
  const health = await request.get("/api/health");
  expect(health.status()).toBe(200);
  const credits = await request.get("/api/credits");
  expect(credits.status()).toBe(401);
  expect(await credits.json()).toMatchObject({ message: "Please sign in to continue" });
});
