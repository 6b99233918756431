import fs from "node:fs";
import path from "node:path";
import { expect, type Page } from "@playwright/test";
import { outboxFiles, readOutboxFile, type OutboxEntry } from "../src/adapters/mail/outbox-reader";

export const PHOTOS = path.resolve(__dirname, "../tests/fixtures/photos");
export const photo = (name: string) => path.join(PHOTOS, name);
const SHOTS = path.resolve(__dirname, "../screenshots");

let counter = 0;
export const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${++counter}@example.com`;

/** Signs up through the API; the browser context keeps the session cookie. */
export async function signUpViaApi(page: Page, tag = "e2e"): Promise<string> {
  const email = uniqueEmail(tag);
  const res = await page.request.post("/api/auth/sign-up/email", {
    data: { email, password: "correct-horse-battery", name: "E2E" },
    headers: { origin: new URL(page.url() === "about:blank" ? "http://localhost" : page.url()).origin },
  });
  expect(res.status()).toBe(200);
  return email;
}

/** Saves a screenshot for review into screenshots/ (git-ignored). */
export async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** Uploads files through the upload area's input and waits until each is ready. */
export async function uploadPhotos(page: Page, files: string[]): Promise<void> {
  await page.getByTestId("upload-input").setInputFiles(files);
  await expect(page.getByTestId("asset-status-uploading")).toHaveCount(0, { timeout: 20_000 });
}

/** Solves the server's ALTCHA challenge in Node, as the widget does in the browser. */
export async function solveBotCheck(page: Page): Promise<string> {
  const { solveChallenge } = await import("altcha-lib");
  const { deriveKey } = await import("altcha-lib/algorithms/pbkdf2");
  const challenge = await (await page.request.get("/api/botcheck/challenge")).json();
  const solution = await solveChallenge({ challenge, deriveKey });
  return Buffer.from(JSON.stringify({ challenge, solution })).toString("base64");
}

/**
 * A server's outbox (no SMTP_URL in the browser tests): DATA_DIR/mail. `server`: the main
 * one, or the one that requires a confirmed address (both started by playwright.config.ts).
 */
function outbox(server: "main" | "verify"): string {
  const name = server === "main" ? "E2E_DATA_DIR" : "E2E_VERIFY_DATA_DIR";
  const dataDir = process.env[name];
  if (!dataDir) throw new Error(`${name} is not set (playwright.config.ts exports it)`);
  return path.join(dataDir, "mail");
}

/** The newest mail to `to` (and matching `subject`, if given), waiting for it to arrive. */
export async function waitForMail(
  to: string,
  opts: { server?: "main" | "verify"; subject?: string; timeoutMs?: number } = {},
): Promise<OutboxEntry> {
  const dir = outbox(opts.server ?? "main");
  const until = Date.now() + (opts.timeoutMs ?? 10_000);
  for (;;) {
    for (const file of (await outboxFiles(dir)).reverse()) {
      const mail = await readOutboxFile(dir, file);
      if (mail.to === to && (opts.subject === undefined || mail.subject === opts.subject)) return mail;
    }
    if (Date.now() > until) throw new Error(`no mail to ${to} in ${dir}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
