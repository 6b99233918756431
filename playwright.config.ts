import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
// Debian chromium and the flags this closed network needs (shared with bench/web.mjs).
import chromium from "./e2e/chromium.json";

const PORT = Number(process.env.E2E_PORT ?? 3100);
// A clean database and storage for every run. Exported as E2E_DATA_DIR (set once by the
// runner, inherited by its workers) so specs can read the server's mail outbox.
const DATA_DIR = (process.env.E2E_DATA_DIR ??= path.join(os.tmpdir(), `photofx-e2e-${Date.now()}`));
// The runner (not its workers, which inherit the folder and may restart mid-run) removes it
// once it exits, after it has stopped the server.
// A second server requires a confirmed e-mail address before sign-in (as with SMTP_URL set):
// e2e/verification.spec.ts signs up there. Its own folder, removed the same way.
const VERIFY_PORT = PORT + 1;
const VERIFY_DATA_DIR = `${DATA_DIR}-verify`;
process.env.E2E_VERIFY_URL = `http://localhost:${VERIFY_PORT}`;
process.env.E2E_VERIFY_DATA_DIR = VERIFY_DATA_DIR;
if (process.env.TEST_WORKER_INDEX === undefined) {
  process.on("exit", () => {
    for (const dir of [DATA_DIR, VERIFY_DATA_DIR]) fs.rmSync(dir, { recursive: true, force: true });
  });
}

const serverEnv = {
  NODE_ENV: "production",
  AUTH_SECRET: "e2e-secret-e2e-secret-e2e-secret-0123456",
  LOG_LEVEL: "warn",
  // Every spec signs up from 127.0.0.1 within seconds: per-IP auth limits would refuse them.
  AUTH_RATE_LIMIT: "false",
  // A light proof of work keeps the bot-check quick in tests; it is still solved for real.
  ALTCHA_COST: "10",
  ALTCHA_MAX_COUNTER: "40",
  RATE_LIMIT_UPLOADS_PER_MINUTE: "0",
  RATE_LIMIT_SUBMITS_PER_MINUTE: "0",
};
const server = {
  command: "node --import tsx server.ts",
  timeout: 120_000,
  reuseExistingServer: false,
} as const;

/** Browser tests against the production build, in Debian's chromium. */
export default defineConfig({
  testDir: "./e2e",
  outputDir: "./test-results",
  timeout: 60_000,
  fullyParallel: false,
  workers: 1,
  reporter: [["list"]],
  use: {
    baseURL: `http://localhost:${PORT}`,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? chromium.executablePath,
      args: chromium.args,
    },
    screenshot: "only-on-failure",
  },
  projects: [{ name: "desktop", use: { ...devices["Desktop Chrome"], channel: undefined } }],
  webServer: [
    {
      ...server,
      url: `http://localhost:${PORT}/api/health`,
      stdout: "ignore",
      stderr: "pipe",
      env: {
        ...serverEnv,
        PORT: String(PORT),
        DATA_DIR,
        APP_URL: `http://localhost:${PORT}`,
        // e2e/plans.spec.ts buys a pack through the built-in test checkout (off by default).
        TEST_CHECKOUT: "true",
        // e2e/admin.spec.ts: this address becomes an admin once verified through the outbox.
        ADMIN_EMAILS: "admin-e2e@example.com",
      },
    },
    {
      ...server,
      url: `http://localhost:${VERIFY_PORT}/api/health`,
      stdout: "ignore",
      stderr: "pipe",
      env: {
        ...serverEnv,
        PORT: String(VERIFY_PORT),
        DATA_DIR: VERIFY_DATA_DIR,
        APP_URL: `http://localhost:${VERIFY_PORT}`,
        EMAIL_VERIFICATION: "required",
      },
    },
  ],
});
