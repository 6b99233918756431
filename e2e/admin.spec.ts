import fs from "node:fs";
import path from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { outboxFiles, readOutboxFile } from "../src/adapters/mail/outbox-reader";
import { photo, shot, solveBotCheck, uniqueEmail } from "./helpers";

/**
 * The operator's console (issue 20), as an operator uses it: finds a customer by e-mail,
 * grants 10 credits with a reason, switches an effect off and on (the effect's page and the
 * API follow at once), opens a failed task (already refunded automatically: a second refund
 * is refused) and refunds a bad result by hand; every action is in the audit log.
 */

const ADMIN = "admin-e2e@example.com"; // ADMIN_EMAILS in playwright.config.ts
const PASSWORD = "correct-horse-battery";

async function waitForMailLink(to: string): Promise<string> {
  const dir = path.join(process.env.E2E_DATA_DIR!, "mail");
  const until = Date.now() + 10_000;
  for (;;) {
    for (const file of await outboxFiles(dir).catch(() => [] as string[])) {
      const mail = await readOutboxFile(dir, file);
      const token = mail.to === to ? /verify-email\?token=([^\s&"]+)/.exec(mail.text)?.[1] : undefined;
      if (token) return token;
    }
    if (Date.now() > until) throw new Error(`no verification mail to ${to}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function submitTask(
  req: APIRequestContext,
  origin: string,
  token: string,
  effectId: string,
  options: Record<string, unknown> = {},
) {
  const up = await req.post("/api/upload", {
    headers: { origin },
    multipart: {
      file: { name: "cat.png", mimeType: "image/png", buffer: fs.readFileSync(photo("pet-1-cat.png")) },
    },
  });
  expect(up.status()).toBe(200);
  const { url } = (await up.json()) as { url: string };
  return req.post("/api/img/nano-banana/submit", {
    headers: { origin },
    data: {
      image_urls: [url],
      imageType: `nano-banana-lora-${effectId}`,
      prompt: "",
      num_images: "1",
      options,
      turnstileToken: token,
    },
  });
}

async function waitForEnd(req: APIRequestContext, origin: string, taskId: string): Promise<number> {
  const until = Date.now() + 45_000;
  for (;;) {
    const r = await req.post("/api/img/nano-banana/taskResult", { headers: { origin }, data: { taskId } });
    const body = (await r.json()) as { code: number };
    if (body.code === 1 || body.code === 2) return body.code;
    if (Date.now() > until) throw new Error(`task ${taskId} still pending`);
    await new Promise((res) => setTimeout(res, 250));
  }
}

test("an admin finds a user, grants credits, switches an effect off and on, and refunds tasks", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const origin = new URL(baseURL!).origin;

  // A customer (own browser context) with one failed task and one good result.
  const customer = await browser.newContext({ baseURL });
  const creq = customer.request;
  const email = uniqueEmail("customer");
  expect(
    (
      await creq.post("/api/auth/sign-up/email", {
        headers: { origin },
        data: { email, password: PASSWORD, name: "Customer" },
      })
    ).status(),
  ).toBe(200);
  // A clean photo: the watermark remover finds nothing, the task fails and is refunded.
  const failing = await submitTask(creq, origin, await solveBotCheck(page), "watermark-remover", {
    rightsConfirmed: true,
  });
  expect(failing.status()).toBe(200);
  const failedId = ((await failing.json()) as { data: { taskIds: string[] } }).data.taskIds[0]!;
  expect(await waitForEnd(creq, origin, failedId)).toBe(2);
  const good = await submitTask(creq, origin, await solveBotCheck(page), "inverted-face-filter");
  expect(good.status()).toBe(200);
  const goodId = ((await good.json()) as { data: { taskIds: string[] } }).data.taskIds[0]!;
  expect(await waitForEnd(creq, origin, goodId)).toBe(1);
  const balance = async () =>
    ((await (await creq.get("/api/credits")).json()) as { balance: number }).balance;
  expect(await balance()).toBe(8);

  // The operator: ADMIN_EMAILS counts only once the address is verified (outbox link, no SMTP).
  const signUp = await page.request.post("/api/auth/sign-up/email", {
    headers: { origin },
    data: { email: ADMIN, password: PASSWORD, name: "Operator" },
  });
  expect(signUp.status()).toBe(200);
  expect((await page.request.get("/api/admin/me")).status()).toBe(404);
  expect(
    (
      await page.request.post("/api/auth/send-verification-email", {
        headers: { origin },
        data: { email: ADMIN },
      })
    ).status(),
  ).toBe(200);
  const token = await waitForMailLink(ADMIN);
  expect(
    (await page.request.get(`/api/auth/verify-email?token=${token}`, { maxRedirects: 0 })).status(),
  ).toBeLessThan(400);

  await page.goto("/en");
  await page.getByTestId("header-admin").click();
  await expect(page).toHaveURL(/\/admin/);
  await expect(page.getByRole("heading", { name: "Admin console" })).toBeVisible();
  await expect(page.getByRole("tab", { name: "Overview" })).toHaveAttribute("aria-selected", "true");
  await expect(page.locator("figure canvas").first()).toBeVisible({ timeout: 15_000 });

  // Users, by keyboard from the tab list: find the customer by e-mail, grant 10 credits.
  await page.getByRole("tab", { name: "Overview" }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("tab", { name: "Users" })).toHaveAttribute("aria-selected", "true");
  await page.getByPlaceholder("Search by e-mail or id").fill(email);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await page.getByTestId("admin-user-result").filter({ hasText: email }).click();
  await expect(page.getByTestId("admin-user-balance")).toHaveText("8");
  await page.getByLabel("Amount (negative removes)").fill("10");
  await page.getByLabel("Reason").first().fill("Sorry about the failed watermark removal");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: "10 credits applied. New balance: 18." }),
  ).toBeVisible();
  await expect(page.getByTestId("admin-user-balance")).toHaveText("18");
  await expect(page.getByTestId("admin-ledger-row").first()).toContainText(
    "Sorry about the failed watermark removal",
  );
  expect(await balance()).toBe(18);
  const ledger = (await (await creq.get("/api/credits/ledger")).json()) as {
    entries: Array<{ kind: string; amount: number; note: string }>;
  };
  expect(ledger.entries[0]).toMatchObject({
    kind: "adjustment",
    amount: 10,
    note: "Sorry about the failed watermark removal",
  });

  // Effects: switch one off (its page says so, submits are refused with no charge), then on.
  await page.getByRole("tab", { name: "Effects" }).click();
  const toggle = page.getByRole("switch", { name: /Inverted/ });
  await expect(toggle).toBeChecked();
  await toggle.uncheck();
  await expect(page.getByText(/is off: its page says it is unavailable/)).toBeVisible();
  const refused = await submitTask(creq, origin, await solveBotCheck(page), "inverted-face-filter");
  expect(refused.status()).toBe(409);
  expect(await refused.json()).toMatchObject({ code: "EFFECT_DISABLED" });
  expect(await balance()).toBe(18);
  const effectPage = await customer.newPage();
  await effectPage.goto("/en/nano-banana-lora/inverted-face-filter");
  await expect(effectPage.getByTestId("effect-unavailable")).toHaveText(
    "This effect is switched off on this server right now.",
  );
  await toggle.check();
  await expect(page.getByText(/Inverted.* is on\./)).toBeVisible();
  await effectPage.reload();
  await expect(effectPage.getByTestId("effect-unavailable")).toHaveCount(0);

  // Tasks: the failed one tells its story; it was refunded when it failed, so not again.
  await page.getByRole("tab", { name: "Tasks" }).click();
  await page.getByLabel("Status").selectOption("failed");
  await page.getByLabel("User (e-mail or id)").fill(email);
  await page.getByRole("button", { name: "Show", exact: true }).click();
  await page.getByRole("button", { name: `Open task ${failedId}` }).click();
  await expect(page.getByTestId("admin-task-failure")).toContainText(/watermark/i);
  await expect(page.getByTestId("admin-task-event")).toContainText([
    "Submitted",
    "Charged 2 credits",
    /Claimed/,
    /Failed/,
    "Refunded 2 credits",
  ]);
  await page.getByLabel("Reason").fill("Customer complained");
  await page.getByRole("button", { name: "Refund this task" }).click();
  await expect(page.getByTestId("admin-task-notice")).toHaveText(
    "This task has already been refunded (a task is refunded at most once).",
  );
  expect(await balance()).toBe(18);

  // The good result, judged bad by the operator: refunded by hand, once.
  await page.getByRole("button", { name: "Back to the list" }).click();
  await page.getByLabel("Status").selectOption("succeeded");
  await page.getByRole("button", { name: "Show", exact: true }).click();
  await page.getByRole("button", { name: `Open task ${goodId}` }).click();
  await expect(page.getByTestId("admin-task-event")).toContainText([/Rendered by local/]);
  await page.getByLabel("Reason").fill("Blurry result");
  await page.getByRole("button", { name: "Refund this task" }).click();
  await expect(page.getByTestId("admin-task-notice")).toHaveText("2 credits refunded.");
  expect(await balance()).toBe(20);
  await shot(page, "admin-task");

  // Every action is in the audit log: the grant, the effect off and on, the refund.
  await page.getByRole("tab", { name: "Audit log" }).click();
  await expect(page.getByTestId("audit-row")).toHaveCount(4);
  await expect(page.getByTestId("audit-row").first()).toContainText("task.refund");

  // On a phone the console still works: the tab list scrolls, nothing overflows the page.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("tab", { name: "Engines" }).click();
  await expect(page.getByTestId("engine-local")).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await shot(page, "admin-phone");

  // A customer is not an admin: the page is the site's 404, the API too.
  const customerAdmin = await effectPage.goto("/en/admin");
  expect(customerAdmin?.status()).toBe(404);
  expect((await creq.get("/api/admin/users")).status()).toBe(404);
  await customer.close();
});
