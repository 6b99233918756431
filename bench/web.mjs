/**
 * npm run bench:web (after `next build`): starts the production server on the embedded
 * defaults, then prints the effect page's first-load JavaScript (gzipped, every script the
 * HTML loads) and its Lighthouse scores (performance, accessibility, best practices, SEO)
 * measured in Debian chromium.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import chromium from "../e2e/chromium.json" with { type: "json" };

// Plain JavaScript run by plain node: Lighthouse serializes functions into the page, and a
// TypeScript loader's injected helpers (esbuild's __name) would break them there.

const PORT = Number(process.env.BENCH_WEB_PORT ?? 3950);
const BASE = `http://localhost:${PORT}`;
const PAGE = process.env.BENCH_WEB_PAGE ?? "/nano-banana-lora/pixel-illustration";

async function waitForHealth() {
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${BASE}/api/health`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("server did not start");
}

async function firstLoadJs(url) {
  const html = await (await fetch(url)).text();
  // noModule scripts are legacy polyfills that modern browsers never download.
  const srcs = [...html.matchAll(/<script([^>]*)>/g)]
    .filter((m) => !/nomodule/i.test(m[1]))
    .map((m) => /src="([^"]+)"/.exec(m[1])?.[1])
    .filter(Boolean);
  let raw = 0;
  let gz = 0;
  for (const src of new Set(srcs)) {
    const body = Buffer.from(await (await fetch(new URL(src, url))).arrayBuffer());
    raw += body.length;
    gz += gzipSync(body, { level: 9 }).length;
  }
  return { scripts: new Set(srcs).size, rawKb: raw / 1024, gzipKb: gz / 1024 };
}

async function main() {
  // chrome-launcher reports a missing browser as an uncaught error event, which would end this
  // script before it stops the server it started: check first.
  const chromePath = process.env.CHROMIUM_PATH ?? chromium.executablePath;
  if (!fs.existsSync(chromePath)) {
    console.error(
      `bench:web needs Chromium at ${chromePath} (apt-get install chromium, or set CHROMIUM_PATH)`,
    );
    process.exit(1);
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "photofx-web-"));
  const server = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(PORT),
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      APP_URL: BASE,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  try {
    await waitForHealth();
    const url = `${BASE}${PAGE}`;
    await fetch(url); // warm the route once
    const js = await firstLoadJs(url);
    console.log(
      `first-load JS of ${PAGE}: ${js.scripts} scripts, ${js.rawKb.toFixed(1)} kB raw, ${js.gzipKb.toFixed(1)} kB gzipped`,
    );

    const chrome = await chromeLauncher.launch({
      chromePath,
      chromeFlags: chromium.args,
    });
    try {
      const result = await lighthouse(url, {
        port: chrome.port,
        output: "json",
        logLevel: "error",
        onlyCategories: ["performance", "accessibility", "best-practices", "seo"],
      });
      const cats = result.lhr.categories;
      console.log("\n| category | score |\n|---|---:|");
      for (const key of ["performance", "accessibility", "best-practices", "seo"]) {
        console.log(`| ${cats[key].title} | ${Math.round((cats[key].score ?? 0) * 100)} |`);
      }
      const audits = result.lhr.audits;
      for (const a of [
        "first-contentful-paint",
        "largest-contentful-paint",
        "total-blocking-time",
        "cumulative-layout-shift",
      ]) {
        console.log(`${audits[a].title}: ${audits[a].displayValue}`);
      }
      const failing = Object.values(audits).filter(
        (a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode === "binary",
      );
      if (failing.length) console.log(`\nfailing audits: ${failing.map((a) => a.id).join(", ")}`);
    } finally {
      chrome.kill();
    }
  } finally {
    server.kill("SIGTERM");
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
