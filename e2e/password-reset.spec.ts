import { expect, test } from "@playwright/test";
import { uniqueEmail, waitForMail } from "./helpers";

test("a user who forgot their password resets it through the e-mailed link and signs in with the new one", async ({
  page,
}) => {
  const email = uniqueEmail("reset");
  await page.goto("/sign-up");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page).toHaveURL(/\/nano-banana-lora$/);
  await expect(page.getByTestId("header-balance")).toHaveText("10 credits");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("link", { name: "Sign in" })).toBeVisible();

  await page.goto("/sign-in");
  await page.getByTestId("forgot-password-link").click();
  await expect(page).toHaveURL(/\/forgot-password$/);
  // No SMTP_URL here: the page says the mail stays with the operator, and whom to write to.
  await expect(page.getByTestId("forgot-no-mail")).toContainText("support@photofx.local");
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Send the link" }).click();
  await expect(page.getByTestId("forgot-sent")).toContainText(`If an account exists for ${email}`);

  const mail = await waitForMail(email);
  expect(mail.subject).toBe("Reset your password");
  const link = /https?:\/\/\S+\/reset-password\?token=[A-Za-z0-9._-]+/.exec(mail.text)?.[0];
  expect(link, mail.text).toBeTruthy();
  expect(new URL(link!).pathname).toBe("/en/reset-password");
  await page.goto(link!);
  await expect(page.getByRole("heading", { name: "Choose a new password" })).toBeVisible();

  const field = page.getByLabel("New password");
  await field.fill("a-brand-new-phrase");
  // The show-password toggle reveals what was typed, and hides it again.
  await page.getByRole("button", { name: "Show password" }).click();
  await expect(field).toHaveAttribute("type", "text");
  await page.getByRole("button", { name: "Hide password" }).click();
  await expect(field).toHaveAttribute("type", "password");
  await page.getByRole("button", { name: "Save the new password" }).click();
  await expect(page.getByTestId("reset-done")).toBeVisible();

  // The old password no longer works; the new one does.
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByText("Could not sign you in")).toBeVisible();
  await page.getByLabel("Password").fill("a-brand-new-phrase");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/nano-banana-lora$/);
  await expect(page.getByTestId("header-balance")).toHaveText("10 credits");

  // The same link works once.
  await page.goto(link!);
  await page.getByLabel("New password").fill("yet-another-phrase");
  await page.getByRole("button", { name: "Save the new password" }).click();
  await expect(page.getByTestId("reset-invalid")).toBeVisible();
});

test("the outbox page exists only in development", async ({ page }) => {
  const res = await page.goto("/dev/mail");
  expect(res?.status()).toBe(404);
});
