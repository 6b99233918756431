import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PROMPT_TABLE } from "./prompts";

/**
 * The engine is server-only: no client module may reach any file under src/engine except
 * the browser-safe effect descriptions (each effect's effect.ts and their generated index),
 * and no built client asset may contain any of the prompts. The bundle check reads `.next/static`, so it runs
 * after `npx next build` (scripts/test.sh builds after the unit tests; run this file again
 * after the build) and is skipped when there is no build.
 */

const ROOT = path.resolve(__dirname, "../..");
const STATIC_DIR = path.join(ROOT, ".next/static");

/** A distinctive run of words from the middle of each prompt, one per sentence start. */
function phrases(instruction: string): string[] {
  return instruction
    .split(/(?<=[.:;])\s+/)
    .map((s) => s.split(/\s+/).slice(2, 9).join(" "))
    .filter((p) => p.split(" ").length >= 6);
}

/** Resolves an import specifier of `from` to a file of ours (null: a package). */
function resolveImport(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = path.join(ROOT, "src", spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(path.dirname(from), spec);
  else return null;
  for (const candidate of [
    base,
    `${base}.ts`,
    `${base}.tsx`,
    path.join(base, "index.ts"),
    path.join(base, "index.tsx"),
  ]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Every file of ours reached from the entries through value imports (type-only imports are erased). */
function reachableFrom(entries: string[]): string[] {
  const seen = new Set<string>();
  const todo = [...entries];
  const importRe =
    /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  while (todo.length) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!/\.(ts|tsx)$/.test(file)) continue;
    const source = fs.readFileSync(file, "utf8");
    for (const m of source.matchAll(importRe)) {
      if (m[2]) continue; // import type / export type
      const target = resolveImport(file, (m[3] ?? m[4])!);
      if (target && !seen.has(target)) todo.push(target);
    }
  }
  return [...seen];
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath, d.name));
}

describe("prompt table stays on the server", () => {
  it("is imported by no client code (src/app, src/ui)", () => {
    const offenders = [...filesUnder(path.join(ROOT, "src/app")), ...filesUnder(path.join(ROOT, "src/ui"))]
      .filter((f) => /\.(ts|tsx)$/.test(f))
      .filter((f) => /engine\/prompts|engine\/providers/.test(fs.readFileSync(f, "utf8")));
    expect(offenders).toEqual([]);
  });

  it("reaches, from any client module, no engine file but the effects' browser-safe descriptions", () => {
    const clientEntries = [
      ...filesUnder(path.join(ROOT, "src/app")),
      ...filesUnder(path.join(ROOT, "src/ui")),
    ]
      .filter((f) => /\.(ts|tsx)$/.test(f))
      .filter((f) => /^\s*["']use client["']/.test(fs.readFileSync(f, "utf8")));
    expect(clientEntries.length).toBeGreaterThan(5);
    const reached = reachableFrom(clientEntries);
    // The walk does follow imports beyond the entries (e.g. the task client of the effect form).
    expect(reached.some((f) => f.endsWith(path.join("src", "ui", "effect", "task-client.ts")))).toBe(true);
    const browserSafe = (f: string) =>
      /src\/engine\/effects\/catalogue\.ts$/.test(f) || /src\/engine\/effects\/[^/]+\/effect\.ts$/.test(f);
    const leaks = reached.filter(
      (f) => f.includes(`${path.sep}src${path.sep}engine${path.sep}`) && !browserSafe(f),
    );
    expect(leaks.map((f) => path.relative(ROOT, f))).toEqual([]);
  });

  it("has distinctive phrases that the public copy does not use", () => {
    const dir = path.join(ROOT, "src/i18n/effect-copy/en");
    const copy = fs
      .readdirSync(dir)
      .map((f) => fs.readFileSync(path.join(dir, f), "utf8"))
      .join("\n");
    for (const [imageType, row] of Object.entries(PROMPT_TABLE)) {
      const own = phrases(row.instruction);
      expect(own.length, imageType).toBeGreaterThan(0);
      expect(
        own.filter((p) => copy.includes(p)),
        imageType,
      ).toEqual([]);
    }
  });

  const built = fs.existsSync(STATIC_DIR);
  // The test command runs this file again right after `next build` with this flag set: there
  // a missing build is a failure, not a skip.
  if (process.env.PHOTOFX_REQUIRE_BUILD && !built)
    throw new Error(`no client bundle at ${STATIC_DIR}: run next build first`);
  it.skipIf(!built)("is not in any file of the client bundle (.next/static)", () => {
    const files = filesUnder(STATIC_DIR).filter((f) => /\.(js|css|json|html|txt|map)$/.test(f));
    const bundle = files.map((f) => fs.readFileSync(f, "utf8"));
    // The grep works: the bundle holds the client's own code (it polls taskResult).
    expect(bundle.some((text) => text.includes("/taskResult"))).toBe(true);
    const found: string[] = [];
    for (const [imageType, row] of Object.entries(PROMPT_TABLE)) {
      for (const phrase of phrases(row.instruction)) {
        if (bundle.some((text) => text.includes(phrase))) found.push(`${imageType}: ${phrase}`);
      }
    }
    expect(found).toEqual([]);
  });
});
