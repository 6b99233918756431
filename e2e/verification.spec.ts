import { expect, test } from "@playwright/test";
import { uniqueEmail, waitForMail } from "./helpers";

/**
 * Sign-up on a server that requires a confirmed address (EMAIL_VERIFICATION=required, as when
 * SMTP_URL is set): the second server of playwright.config.ts.
 */
test.use({ baseURL: process.env.E2E_VERIFY_URL });

const PASSWORD = "correct-horse-battery";

async function signUp(page: import("@playwright/test").Page, email: string) {
  await page.goto("/sign-up");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
}

test("a new account signs in only after following the e-mailed link, and gets its credits then", async ({
  page,
}) => {
  const email = uniqueEmail("verify");
  await signUp(page, email);
  await expect(page.getByTestId("check-inbox")).toContainText(`We have sent a link to ${email}.`);
  await expect(page.getByTestId("header-balance")).toHaveCount(0); // not signed in

  // Signing in first is refused with a way to get the link again.
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByTestId("email-not-verified")).toContainText(
    "Confirm your e-mail address first: follow the link we sent you when you signed up.",
  );

  const mail = await waitForMail(email, { server: "verify", subject: "Confirm your e-mail address" });
  const link = /https?:\/\/\S+verify-email\?token=[^\s"]+/.exec(mail.text)?.[0];
  expect(link, mail.text).toBeTruthy();
  await page.goto(link!);
  await expect(page.getByTestId("email-verified")).toContainText(
    "Your e-mail address is confirmed. Welcome!",
  );
  await page.getByRole("link", { name: "Start creating" }).click();
  await expect(page.getByTestId("header-balance")).toHaveText("10 credits");
});

test("signing up with a taken address answers exactly as for a new one, and tells the owner by mail", async ({
  page,
}) => {
  const email = uniqueEmail("verify-taken");
  await signUp(page, email);
  await expect(page.getByTestId("check-inbox")).toBeVisible();
  const first = await page.getByTestId("check-inbox").innerText();

  await signUp(page, email);
  await expect(page.getByTestId("check-inbox")).toBeVisible();
  expect(await page.getByTestId("check-inbox").innerText()).toBe(first);
  const notice = await waitForMail(email, {
    server: "verify",
    subject: "You already have a photofx account",
  });
  expect(notice.text).toContain("/forgot-password");
});
