/**
 * First-load JavaScript of a page: every script a browser downloads before the page is
 * interactive, summed raw and gzipped (level 9). Shared by `npm run bench:web` (which reads
 * the scripts from a served page's HTML) and tests/build/js-budget.test.ts (which reads them
 * from the build's manifests, with no server).
 */
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { gzipSync } from "node:zlib";

/** The script sources an HTML page loads; noModule scripts are legacy polyfills modern browsers skip. */
export function scriptSrcsOfHtml(html) {
  const srcs = [...html.matchAll(/<script([^>]*)>/g)]
    .filter((m) => !/nomodule/i.test(m[1]))
    .map((m) => /src="([^"]+)"/.exec(m[1])?.[1])
    .filter(Boolean);
  return [...new Set(srcs)];
}

/** Sizes of the given script bodies: count, raw and gzipped kB (1 kB = 1024 bytes). */
export function measureScripts(bodies) {
  let raw = 0;
  let gz = 0;
  for (const body of bodies) {
    raw += body.length;
    gz += gzipSync(body, { level: 9 }).length;
  }
  return { scripts: bodies.length, rawKb: raw / 1024, gzipKb: gz / 1024 };
}

/**
 * The scripts `next build` makes an App Router page load first, from its manifests: the
 * root main files (runtime, React, Next's client) and the entry chunks of the page, of the
 * layouts above it and of their boundaries. `route` is the app directory path of the page, e.g.
 * "[locale]/nano-banana-lora/[model]/page". Paths are relative to `.next`.
 */
export function buildScriptsOfRoute(nextDir, route) {
  const base = path.join(nextDir, "server", "app", route);
  const buildManifest = path.join(base, "build-manifest.json");
  const clientManifest = `${base}_client-reference-manifest.js`;
  for (const file of [buildManifest, clientManifest]) {
    if (!fs.existsSync(file))
      throw new Error(`no ${path.relative(nextDir, file)} in the build: is "${route}" a page?`);
  }
  const { rootMainFiles = [] } = JSON.parse(fs.readFileSync(buildManifest, "utf8"));
  const sandbox = { globalThis: {} };
  sandbox.globalThis = sandbox;
  vm.runInNewContext(fs.readFileSync(clientManifest, "utf8"), sandbox);
  const manifest = sandbox.__RSC_MANIFEST?.[`/${route}`];
  if (!manifest) throw new Error(`${path.relative(nextDir, clientManifest)} has no entry for /${route}`);
  // The route's manifest holds the entries of its own tree only: the page, the layouts above
  // it and their boundaries (not-found, error, global-error), all of which the HTML loads.
  const files = new Set(rootMainFiles);
  for (const chunks of Object.values(manifest.entryJSFiles ?? {})) for (const file of chunks) files.add(file);
  return [...files];
}

/** First-load JS of a built page, read from `.next` (see buildScriptsOfRoute). */
export function firstLoadOfBuiltRoute(nextDir, route) {
  const files = buildScriptsOfRoute(nextDir, route);
  return { files, ...measureScripts(files.map((f) => fs.readFileSync(path.join(nextDir, f)))) };
}
