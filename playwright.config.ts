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
if (process.env.TEST_WORKER_INDEX === undefined) {
  process.on("exit", () => fs.rmSync(DATA_DIR, { recursive: true, force: true }));
}

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
  webServer: {
    command: "node --import tsx server.ts",
    url: `http://localhost:${PORT}/api/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      NODE_ENV: "production",
      PORT: String(PORT),
      DATA_DIR,
      AUTH_SECRET: "e2e-secret-e2e-secret-e2e-secret-0123456",
      APP_URL: `http://localhost:${PORT}`,
      LOG_LEVEL: "warn",
      // Every spec signs up from 127.0.0.1 within seconds: per-IP auth limits would refuse them.
      AUTH_RATE_LIMIT: "false",
      // A light proof of work keeps the bot-check quick in tests; it is still solved for real.
      ALTCHA_COST: "10",
      ALTCHA_MAX_COUNTER: "40",
      RATE_LIMIT_UPLOADS_PER_MINUTE: "0",
      RATE_LIMIT_SUBMITS_PER_MINUTE: "0",
      // e2e/plans.spec.ts buys a pack through the built-in test checkout (off by default).
      TEST_CHECKOUT: "true",
      // e2e/admin.spec.ts: this address becomes an admin once verified through the outbox.
      ADMIN_EMAILS: "admin-e2e@example.com",
    },
  },
});
