import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { Worker } from "node:worker_threads";
import { createEnginePool, workerExecArgv } from "./pool";
import { EngineError } from "@/core/ports/renderer";

const cat = fs.readFileSync(path.resolve(__dirname, "../../../../tests/fixtures/photos/pet-1-cat.png"));

describe("engine pool (worker threads)", () => {
  const pool = createEnginePool({ threads: 1 });
  afterAll(() => pool.close());

  it("renders in a worker thread and returns the exact mirror", async () => {
    const out = await pool.render({
      effectId: "inverted-face-filter",
      route: "v1",
      images: [{ bytes: cat, mime: "image/png" }],
      options: {},
      prompt: "",
      seed: 1,
    });
    expect(out).toMatchObject({ mime: "image/png", provider: "local", width: 451, height: 300 });
    const got = await sharp(Buffer.from(out.bytes)).ensureAlpha().raw().toBuffer();
    const want = await sharp(cat).flop().ensureAlpha().raw().toBuffer();
    expect(got.equals(want)).toBe(true);
  });

  it("turns a refusal inside the worker into an EngineError with its reason and code", async () => {
    const request = {
      effectId: "studio-portrait",
      route: "v1" as const,
      images: [{ bytes: cat, mime: "image/png" }],
      options: {},
      prompt: "",
      seed: 1,
    };
    for (const run of [() => pool.render(request), () => pool.check(request)]) {
      const err = await run().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EngineError);
      expect((err as EngineError).reason).toMatch(/No face was found/);
      expect((err as EngineError).code).toBe("noFace");
    }
  }, 60_000);

  it("passes the input check of an effect without input rules, and of a photo that meets them", async () => {
    const portrait = fs.readFileSync(
      path.resolve(__dirname, "../../../../tests/fixtures/photos/portrait-male-2.jpg"),
    );
    const base = { route: "v1" as const, options: {}, prompt: "", seed: 1 };
    await pool.check({
      ...base,
      effectId: "inverted-face-filter",
      images: [{ bytes: cat, mime: "image/png" }],
    });
    await pool.check({
      ...base,
      effectId: "studio-portrait",
      images: [{ bytes: portrait, mime: "image/jpeg" }],
    });
  }, 60_000);

  it("screens photos for explicit content in the worker: passes ordinary photos, refuses at the threshold with code nsfw", async () => {
    const images = [{ bytes: cat, mime: "image/png" }];
    await expect(pool.screen({ images, threshold: 0.7, kind: "input" })).resolves.toBeUndefined();
    // A threshold every photo reaches stands in for an explicit one (no such fixture is kept).
    const err = await pool.screen({ images, threshold: 1e-6, kind: "input" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect(err).toMatchObject({ code: "nsfw", retryable: false });
    expect((err as EngineError).reason).toMatch(/nudity or sexual content/);
    const out = await pool.screen({ images, threshold: 1e-6, kind: "output" }).catch((e: unknown) => e);
    expect((out as EngineError).reason).toMatch(/result was withheld/);
  }, 60_000);
});

describe("engine pool memory budget", () => {
  const mirror = {
    effectId: "inverted-face-filter",
    route: "v1" as const,
    images: [{ bytes: cat, mime: "image/png" }],
    options: {},
    prompt: "",
    seed: 1,
  };

  it("moves work to fresh threads once a thread's models pass the budget, and keeps rendering", async () => {
    // The content screen loads the tfjs model into the thread: far more than 1 MB.
    const pool = createEnginePool({ threads: 1, memoryBudgetMb: 1 });
    try {
      await pool.screen({ images: mirror.images, threshold: 0.7, kind: "input" });
      expect(pool.generation).toBe(1);
      const out = await pool.render(mirror);
      expect(out).toMatchObject({ width: 451, height: 300 });
      expect(pool.generation).toBe(2);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it("finishes every task queued on the retired threads: a retirement fails nobody's request", async () => {
    // One thread, a budget every screen passes: the first answer retires the pool while the
    // other requests still wait in its queue (as concurrent submits do under load).
    const pool = createEnginePool({ threads: 1, memoryBudgetMb: 1 });
    try {
      const screens = Array.from({ length: 6 }, () =>
        pool.screen({ images: mirror.images, threshold: 0.7, kind: "input" }),
      );
      const renders = Array.from({ length: 2 }, () => pool.render(mirror));
      const settled = await Promise.allSettled([...screens, ...renders]);
      expect(settled.map((s) => (s.status === "rejected" ? String(s.reason) : "ok"))).toEqual(
        Array(8).fill("ok"),
      );
      expect(pool.generation).toBeGreaterThanOrEqual(1);
    } finally {
      await pool.close();
    }
  }, 120_000);

  it("keeps its threads (and their loaded models) while they stay under the budget, or with none set", async () => {
    for (const memoryBudgetMb of [0, 100_000]) {
      const pool = createEnginePool({ threads: 1, memoryBudgetMb });
      try {
        await pool.screen({ images: mirror.images, threshold: 0.7, kind: "input" });
        await pool.render(mirror);
        expect(pool.generation).toBe(0);
      } finally {
        await pool.close();
      }
    }
  }, 60_000);
});

describe("engine pool process budget", () => {
  const mirror = {
    effectId: "inverted-face-filter",
    route: "v1" as const,
    images: [{ bytes: cat, mime: "image/png" }],
    options: {},
    prompt: "",
    seed: 1,
  };

  it("retires threads holding models once the process passes its budget, and only then", async () => {
    let rss = 500;
    const pool = createEnginePool({ threads: 1, processBudgetMb: 600, processRssMb: () => rss });
    try {
      // The content screen loads the tfjs model (well over RECLAIMABLE_MB with the backend).
      await pool.screen({ images: mirror.images, threshold: 0.7, kind: "input" });
      expect(pool.generation).toBe(0);
      rss = 700;
      await pool.screen({ images: mirror.images, threshold: 0.7, kind: "input" });
      expect(pool.generation).toBe(1);
      // A fresh thread that loads no model (the mirror) is not retired however large the process.
      const out = await pool.render(mirror);
      expect(out).toMatchObject({ width: 451, height: 300 });
      expect(pool.generation).toBe(1);
    } finally {
      await pool.close();
    }
  }, 60_000);
});

describe("engine threads under the server's Node flags", () => {
  it("start although the server runs with V8 flags a worker refuses (npm start's --max-semi-space-size)", async () => {
    const parent = [
      "--max-semi-space-size=4",
      "--import",
      "tsx",
      "--enable-source-maps",
      "--inspect=0",
      "-r",
      "x",
    ];
    const argv = workerExecArgv(parent);
    expect(argv).toEqual(["--import", "tsx", "--enable-source-maps", "-r", "x"]);
    // Node itself accepts what is left (the flags tsx and loaders need).
    const worker = new Worker("require('node:worker_threads').parentPort.postMessage('up')", {
      eval: true,
      execArgv: argv.filter((a, i, all) => a !== "-r" && all[i - 1] !== "-r"),
    });
    await expect(new Promise((resolve) => worker.once("message", resolve))).resolves.toBe("up");
    await worker.terminate();
    expect(() => new Worker("", { eval: true, execArgv: ["--max-semi-space-size=4"] })).toThrow(/execArgv/);
  });
});
