import { expect, test } from "@playwright/test";
import { uniqueEmail } from "./helpers";

// APP_URL is http://localhost:<port> (playwright.config.ts); many people type 127.0.0.1.
test("signing up from http://127.0.0.1 lands on APP_URL's address and works", async ({ page, baseURL }) => {
  const app = new URL(baseURL!);
  await page.goto(`http://127.0.0.1:${app.port}/fr/sign-up?next=%2Fpricing`);
  // Sent to APP_URL's own address with the path and query kept.
  await expect(page).toHaveURL(`${app.origin}/fr/sign-up?next=%2Fpricing`);
  await page.getByLabel("E-mail", { exact: true }).fill(uniqueEmail("loopback"));
  await page.getByLabel("Mot de passe", { exact: true }).fill("correct-horse-battery");
  await page.getByRole("button", { name: "Créer un compte" }).click();
  // No INVALID_ORIGIN: the account is made and the user is sent on to `next`.
  await expect(page).toHaveURL(/\/fr\/pricing$/);
});
