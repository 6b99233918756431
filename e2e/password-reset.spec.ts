import path from "node:path";
import { expect, test } from "@playwright/test";
import { outboxFiles, readOutboxFile, type OutboxEntry } from "../src/adapters/mail/outbox-reader";
import { uniqueEmail } from "./helpers";

/** The server's outbox (no SMTP_URL in the browser tests): DATA_DIR/mail, DATA_DIR from playwright.config.ts. */
function outbox(): string {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error("E2E_DATA_DIR is not set (playwright.config.ts exports it)");
  return path.join(dataDir, "mail");
}

async function waitForMail(to: string, timeoutMs = 10_000): Promise<OutboxEntry> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    for (const file of (await outboxFiles(outbox())).reverse()) {
      const mail = await readOutboxFile(outbox(), file);
      if (mail.to === to) return mail;
    }
    if (Date.now() > until) throw new Error(`no mail to ${to} in ${outbox()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

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
