/**
 * npm run bench:web (after `next build`): starts the production server on the embedded
 * defaults, then prints each page's first-load JavaScript (gzipped, every script the HTML
 * loads) and its Lighthouse scores (performance, accessibility, best practices, SEO)
 * measured in Debian chromium. BENCH_WEB_PAGE: a path, or several separated by commas
 * (default: the effect page). BENCH_WEB_OUT: a folder to keep each run's Lighthouse report
 * (`<page>.lhr.json`) and trace (`<page>.trace.json`, opens in Chrome's performance panel).
 * BENCH_WEB_APP: serve another build (a folder with its own server.ts and .next) for A/B runs.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import chromium from "../e2e/chromium.json" with { type: "json" };
import { measureScripts, scriptSrcsOfHtml } from "./first-load-js.mjs";

// Plain JavaScript run by plain node: Lighthouse serializes functions into the page, and a
// TypeScript loader's injected helpers (esbuild's __name) would break them there.

const PORT = Number(process.env.BENCH_WEB_PORT ?? 3950);
const BASE = `http://localhost:${PORT}`;
const OUT = process.env.BENCH_WEB_OUT;
const APP = path.resolve(process.env.BENCH_WEB_APP ?? ".");
const PAGES = (process.env.BENCH_WEB_PAGE ?? "/nano-banana-lora/pixel-illustration")
  .split(",")
  .map((p) => p.trim())
  .filter(Boolean);

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
  const bodies = [];
  for (const src of scriptSrcsOfHtml(html)) {
    bodies.push(Buffer.from(await (await fetch(new URL(src, url))).arrayBuffer()));
  }
  return measureScripts(bodies);
}

async function measure(page, chromePath) {
  const url = `${BASE}${page}`;
  await fetch(url); // warm the route once
  const js = await firstLoadJs(url);
  console.log(
    `\n## ${page}\nfirst-load JS: ${js.scripts} scripts, ${js.rawKb.toFixed(1)} kB raw, ${js.gzipKb.toFixed(1)} kB gzipped`,
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
    if (OUT) {
      fs.mkdirSync(OUT, { recursive: true });
      const name = page.replace(/^\/|\/$/g, "").replace(/\//g, "_") || "home";
      fs.writeFileSync(path.join(OUT, `${name}.lhr.json`), JSON.stringify(result.lhr));
      fs.writeFileSync(
        path.join(OUT, `${name}.trace.json`),
        JSON.stringify(result.artifacts.Trace ?? result.artifacts.traces?.defaultPass ?? {}),
      );
    }
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
      "speed-index",
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
  const server = spawn(process.execPath, ["--import", "tsx", path.join(APP, "server.ts")], {
    cwd: APP,
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
    for (const page of PAGES) await measure(page, chromePath);
  } finally {
    server.kill("SIGTERM");
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
