import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * Adding an effect takes its folder plus its copy, nothing else (ADR 009). In a temporary
 * copy of the tree (never the live one: tests run in parallel), `npm run effects:new` adds a
 * 23rd effect from the template; then the catalogue, the effect page's data, submit (a real
 * task through the API on Postgres), the registry-parity test and the prompt table must all
 * pick it up, while no file other than the new folder, its English copy and the generated
 * indexes has changed.
 */

const ROOT = path.resolve(__dirname, "../..");
const ID = "soft-print-test";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "photofx-new-effect-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const hashOf = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

/** The tracked source tree (no examples, screenshots or browser tests: the probe needs none). */
function copyTree(): Map<string, string> {
  const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\n")
    .filter(
      (f) => f && !/^(public\/examples|e2e|screenshots|docs)\//.test(f) && fs.existsSync(path.join(ROOT, f)),
    );
  const hashes = new Map<string, string>();
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(tmp, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(tmp, f));
    hashes.set(f, hashOf(path.join(tmp, f)));
  }
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(tmp, "node_modules"), "dir");
  return hashes;
}

/** Every file of the copy, relative (node_modules left out). */
function listTree(dir = tmp, out: string[] = []): string[] {
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    if (d.name === "node_modules") continue;
    const p = path.join(dir, d.name);
    if (d.isDirectory()) listTree(p, out);
    else out.push(path.relative(tmp, p));
  }
  return out;
}

/** What the probe, run inside the copy, checks through the product's own modules and API. */
const PROBE = `
import { describe, expect, it } from "vitest";
import { EFFECTS, getEffect, getEffectByImageType } from "@/core/catalogue";
import { getEffectCopy } from "@/i18n/effect-copy";
import { PROMPT_TABLE, buildPrompt } from "@/engine/prompts";
import { fixture, signUp, startTestServer, submit, waitForTask } from "../integration/harness";

describe("a new effect from the template", () => {
  it("is in the catalogue with its imageType, price and page address", () => {
    const e = getEffect("${ID}")!;
    expect(e).toBeDefined();
    expect(EFFECTS.at(-1)!.id).toBe("${ID}");
    expect(getEffectByImageType("nano-banana-lora-${ID}")).toBe(e);
    expect(e.href).toBe("/nano-banana-lora/${ID}");
    expect(e.credits).toBe(2);
  });

  it("has what its effect page shows: English copy, and the English fallback in German", async () => {
    expect((await getEffectCopy("en", "${ID}"))!.title).toBe("Soft Print Test");
    const de = (await getEffectCopy("de", "${ID}"))!;
    expect(de.fallback).toBe(true);
    expect(de.faq).toHaveLength(4);
  });

  it("has a hosted prompt", () => {
    expect(PROMPT_TABLE["${ID}"]).toBeDefined();
    expect(buildPrompt({ effectId: "${ID}", options: {}, mood: "", imageCount: 1 }).text).toMatch(/black-and-white/);
  });

  it("is submitted, charged and rendered through the API", async () => {
    const server = await startTestServer();
    try {
      const user = await signUp(server);
      const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
      const res = await submit(user, { image_urls: [up.body.url!], imageType: "nano-banana-lora-${ID}" });
      expect(res.status).toBe(200);
      const done = await waitForTask(user, res.body.data!.taskIds[0]!, 60_000);
      expect(done.body).toMatchObject({ code: 1, failedReason: null });
      expect((await user.json("/api/credits")).body).toEqual({ balance: 8 });
    } finally {
      await server.close();
    }
  }, 120_000);
});
`;

describe("adding an effect", () => {
  it("takes one folder and one copy file, and every part of the product picks it up", () => {
    const before = copyTree();
    const add = spawnSync("node", ["--import", "tsx", "scripts/new-effect.ts", ID, "Soft Print Test"], {
      cwd: tmp,
      encoding: "utf8",
    });
    expect(add.status, add.stderr).toBe(0);

    const after = listTree();
    const added = after.filter((f) => !before.has(f)).sort();
    const changed = [...before].filter(
      ([f, h]) => !fs.existsSync(path.join(tmp, f)) || hashOf(path.join(tmp, f)) !== h,
    );
    expect(added).toEqual(
      [
        `src/engine/effects/${ID}/RECIPE.md`,
        `src/engine/effects/${ID}/effect.ts`,
        `src/engine/effects/${ID}/prompt.ts`,
        `src/engine/effects/${ID}/render.test.ts`,
        `src/engine/effects/${ID}/render.ts`,
        `src/i18n/effect-copy/en/${ID}.json`,
      ].sort(),
    );
    // Only the generated indexes change, and they are written by the script, not by hand.
    expect(changed.map(([f]) => f).sort()).toEqual(
      [
        "src/engine/effects/catalogue.ts",
        "src/engine/effects/local.ts",
        "src/engine/effects/prompts.ts",
      ].sort(),
    );

    fs.mkdirSync(path.join(tmp, "tests/probe"), { recursive: true });
    fs.writeFileSync(path.join(tmp, "tests/probe/new-effect.probe.test.ts"), PROBE);
    const run = spawnSync(
      path.join(ROOT, "node_modules/.bin/vitest"),
      [
        "run",
        "tests/probe",
        `src/engine/effects/${ID}`,
        "src/core/catalogue.test.ts",
        "src/engine/effects/local.test.ts",
        "src/engine/prompts.test.ts",
        "src/engine/prompts.bundle.test.ts",
      ],
      { cwd: tmp, encoding: "utf8", env: { ...process.env, PHOTOFX_REQUIRE_BUILD: "" }, timeout: 240_000 },
    );
    expect(run.status, `${run.stdout}\n${run.stderr}`.slice(-4000)).toBe(0);
    // eslint-disable-next-line no-control-regex
    const plain = run.stdout.replace(/\x1b\[[0-9;]*m/g, "");
    expect(plain).toMatch(/Test Files\s+6 passed \(6\)/);
  }, 300_000);
});
