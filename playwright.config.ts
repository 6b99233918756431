import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
// Debian chromium and the flags this closed network needs (shared with bench/web.mjs).
import chromium from "./e2e/chromium.json";

const PORT = Number(process.env.E2E_PORT ?? 3100);
// A clean database and storage for every run.
const DATA_DIR = path.join(os.tmpdir(), `photofx-e2e-${Date.now()}`);

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
    },
  },
});
