import { expect, request as playwrightRequest, test, type APIRequestContext } from "@playwright/test";
import { signUpViaApi, uniqueEmail, waitForMail } from "./helpers";

/**
 * The account page's security forms, as a user with two devices uses them: the other device
 * is a separate cookie jar signed in to the same account.
 */

const PASSWORD = "correct-horse-battery";

async function otherDevice(baseURL: string, email: string, password = PASSWORD): Promise<APIRequestContext> {
  const device = await playwrightRequest.newContext({ baseURL });
  const res = await device.post("/api/auth/sign-in/email", {
    data: { email, password },
    headers: { origin: baseURL },
  });
  expect(res.status()).toBe(200);
  return device;
}

const signedIn = async (device: APIRequestContext) => (await device.get("/api/credits")).status() === 200;

test("changing the password refuses a wrong current one, signs the other device out, and the new one works", async ({
  page,
  baseURL,
}) => {
  await page.goto("/");
  const email = await signUpViaApi(page, "security-pw");
  const phone = await otherDevice(baseURL!, email);
  expect(await signedIn(phone)).toBe(true);

  await page.goto("/account");
  const section = page.getByTestId("security-section");
  await section.getByLabel("Current password", { exact: true }).fill("not-my-password");
  await section.getByLabel("New password", { exact: true }).fill("a-brand-new-phrase");
  await section.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByTestId("password-notice")).toHaveText("The current password is not correct.");
  expect(await signedIn(phone)).toBe(true); // a refused change ends nothing

  await section.getByLabel("Current password", { exact: true }).fill(PASSWORD);
  await section.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByTestId("password-notice")).toHaveText(
    "Your password has been changed. Your other devices were signed out.",
  );
  expect(await signedIn(phone)).toBe(false);
  await page.reload();
  await expect(page.getByTestId("header-balance")).toHaveText("10 credits"); // this device stays

  // The old password no longer signs in; the new one does.
  const retry = await playwrightRequest.newContext({ baseURL });
  const old = await retry.post("/api/auth/sign-in/email", {
    data: { email, password: PASSWORD },
    headers: { origin: baseURL! },
  });
  expect(old.status()).toBe(401);
  expect(await signedIn(await otherDevice(baseURL!, email, "a-brand-new-phrase"))).toBe(true);
});

test("sign out everywhere else ends the other device's session and keeps this one", async ({
  page,
  baseURL,
}) => {
  await page.goto("/");
  const email = await signUpViaApi(page, "security-sessions");
  const tablet = await otherDevice(baseURL!, email);
  expect(await signedIn(tablet)).toBe(true);

  await page.goto("/account");
  await page.getByTestId("sign-out-everywhere").click();
  await expect(page.getByTestId("sessions-notice")).toHaveText("Every other device has been signed out.");
  expect(await signedIn(tablet)).toBe(false);
  await page.reload();
  await expect(page.getByTestId("header-balance")).toHaveText("10 credits");
});

test("changing the e-mail address takes effect only through the link sent to the new address", async ({
  page,
}) => {
  await page.goto("/");
  const email = await signUpViaApi(page, "security-email");
  const next = uniqueEmail("security-new");

  await page.goto("/account");
  const section = page.getByTestId("security-section");
  await expect(section.getByText(`Current address: ${email}`)).toBeVisible();
  await page.getByTestId("new-email").fill(email);
  await section.getByRole("button", { name: "Change address" }).click();
  await expect(page.getByTestId("email-notice")).toHaveText("This is already your address.");

  await page.getByTestId("new-email").fill(next);
  await section.getByRole("button", { name: "Change address" }).click();
  await expect(page.getByTestId("email-notice")).toHaveText(
    `If ${next} can be used, we have sent it a link. Your address changes once you follow it.`,
  );
  await page.reload();
  await expect(section.getByText(`Current address: ${email}`)).toBeVisible(); // not yet

  const mail = await waitForMail(next);
  const link = /https?:\/\/\S+verify-email\?token=[^\s"]+/.exec(mail.text)?.[0];
  expect(link, mail.text).toBeTruthy();
  await page.goto(link!);
  await expect(page.getByTestId("email-verified")).toBeVisible();
  await page.goto("/account");
  await expect(section.getByText(`Current address: ${next}`)).toBeVisible();
});
