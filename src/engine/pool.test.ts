import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { createEnginePool } from "./pool";
import { EngineError } from "./types";

const cat = fs.readFileSync(path.resolve(__dirname, "../../tests/fixtures/photos/pet-1-cat.png"));

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

  it("turns a refusal inside the worker into an EngineError with its reason", async () => {
    const err = await pool
      .render({
        effectId: "stylized-stickers",
        route: "v1",
        images: [{ bytes: cat, mime: "image/png" }],
        options: {},
        prompt: "",
        seed: 1,
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).reason).toMatch(/not available yet/);
  });
});
