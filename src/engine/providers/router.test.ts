import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { EngineError, type RenderRequest, type RenderResult } from "@/core/ports/renderer";
import { ProviderHttpError } from "./http";
import type { Renderer } from "@/core/ports/renderer";
import { ProviderRouter, RouterReasons, type RouterConfig } from "./router";

const request = (effectId = "3d-finger", route: "v1" | "v2" = "v1"): RenderRequest => ({
  effectId,
  route,
  images: [{ bytes: new Uint8Array([1]), mime: "image/png" }],
  options: {},
  prompt: "",
  seed: 1,
});

/** A provider whose answers the test scripts; records what it was asked. */
function fakeProvider(
  id: string,
  behave: () => Promise<void> | void = () => undefined,
  supports = () => true,
) {
  const calls: Array<{ req: RenderRequest; signal?: AbortSignal }> = [];
  const p: Renderer & { calls: typeof calls; behave: typeof behave } = {
    id,
    calls,
    behave,
    supports,
    async render(req, signal) {
      calls.push({ req, signal });
      await p.behave();
      return {
        bytes: new Uint8Array([9]),
        mime: "image/png",
        width: 1,
        height: 1,
        provider: id,
        model: `${id}-model`,
      } satisfies RenderResult;
    },
  };
  return p;
}

const baseConfig: RouterConfig = {
  engine: "fal",
  overrides: {},
  fallback: ["gemini", "local"],
  renderTimeoutMs: 1_000,
  breaker: { threshold: 2, cooldownMs: 60_000 },
  costPerImage: { fal: { v1: 0.04, v2: 0.08 }, gemini: { v1: 0.03, v2: 0.06 } },
  dailyCap: {},
};

describe("ProviderRouter", () => {
  it("orders candidates: override or engine, then the fallback, without repeats", () => {
    const router = new ProviderRouter([fakeProvider("fal"), fakeProvider("gemini"), fakeProvider("local")], {
      ...baseConfig,
      overrides: { "inverted-face-filter": "local" },
    });
    expect(router.candidates("3d-finger")).toEqual(["fal", "gemini", "local"]);
    expect(router.candidates("inverted-face-filter")).toEqual(["local", "gemini"]);
  });

  it("renders with the first candidate and returns its provider and model", async () => {
    const fal = fakeProvider("fal");
    const router = new ProviderRouter([fal, fakeProvider("local")], baseConfig);
    const out = await router.render(request());
    expect(out).toMatchObject({ provider: "fal", model: "fal-model" });
    expect(fal.calls).toHaveLength(1);
  });

  it("plans by the first candidate's photo limit and falls back past a provider that takes fewer photos", async () => {
    const comfy = { ...fakeProvider("comfyui"), maxImages: () => 3 };
    const gemini = fakeProvider("gemini");
    const router = new ProviderRouter([comfy, gemini, fakeProvider("local")], {
      ...baseConfig,
      engine: "comfyui",
      costPerImage: {},
    });
    expect(router.maxImages("free-form")).toBe(3);
    const four = { ...request("free-form"), images: Array.from({ length: 4 }, () => request().images[0]!) };
    const out = await router.render(four);
    expect(out.provider).toBe("gemini");
    expect(comfy.calls).toHaveLength(0);
    await router.render(request("free-form"));
    expect(comfy.calls).toHaveLength(1);
  });

  it("skips a provider that does not support the effect", async () => {
    const fal = fakeProvider("fal", undefined, () => false);
    const local = fakeProvider("local");
    const out = await new ProviderRouter([fal, local], baseConfig).render(request());
    expect(out.provider).toBe("local");
  });

  it("fails a render without trying the next provider, as an EngineError", async () => {
    const fal = fakeProvider("fal", () => {
      throw new ProviderHttpError("fal", 503, "The image service is having problems right now.");
    });
    const local = fakeProvider("local");
    const router = new ProviderRouter([fal, local], baseConfig);
    await expect(router.render(request())).rejects.toMatchObject({
      reason: "The image service is having problems right now.",
    });
    expect(local.calls).toHaveLength(0);
  });

  it("wraps an unexpected crash in a clear EngineError", async () => {
    const fal = fakeProvider("fal", () => {
      throw new TypeError("undefined is not a function");
    });
    const err = await new ProviderRouter([fal], baseConfig).render(request()).catch((e) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect(err.reason).toBe(RouterReasons.unexpected);
  });

  it("opens the breaker after N provider failures and routes to the fallback for the cool-down", async () => {
    let now = 1_000_000;
    let failing = true;
    const fal = fakeProvider("fal", () => {
      if (failing) throw new EngineError("down", true);
    });
    const gemini = fakeProvider("gemini");
    const router = new ProviderRouter([fal, gemini, fakeProvider("local")], baseConfig, undefined, () => now);
    await expect(router.render(request())).rejects.toThrow("down");
    await expect(router.render(request())).rejects.toThrow("down");
    expect(await router.breaker("fal")!.state()).toBe("open");
    // Open: fal is skipped, gemini renders.
    expect((await router.render(request())).provider).toBe("gemini");
    expect(fal.calls).toHaveLength(2);
    // After the cool-down one trial goes to fal; its success closes the breaker.
    now += 60_000;
    failing = false;
    expect((await router.render(request())).provider).toBe("fal");
    expect(await router.breaker("fal")!.state()).toBe("closed");
  });

  it("does not count a refused photo (not retryable) against the provider", async () => {
    const fal = fakeProvider("fal", () => {
      throw new EngineError("The image service's safety filter blocked this request.");
    });
    const router = new ProviderRouter([fal, fakeProvider("local")], baseConfig);
    for (let i = 0; i < 5; i++) await router.render(request()).catch(() => undefined);
    expect(await router.breaker("fal")!.state()).toBe("closed");
  });

  it("uses the fallback once the day's spend would pass the cap, and counts only successes", async () => {
    let failNext = false;
    const fal = fakeProvider("fal", () => {
      if (failNext) {
        failNext = false;
        throw new EngineError("down", true);
      }
    });
    const router = new ProviderRouter([fal, fakeProvider("local")], {
      ...baseConfig,
      fallback: ["local"],
      dailyCap: { fal: 0.1 },
    });
    expect((await router.render(request())).provider).toBe("fal"); // 0.04
    failNext = true;
    await expect(router.render(request())).rejects.toThrow("down"); // released
    expect((await router.render(request())).provider).toBe("fal"); // 0.08
    expect(await router.spend.spentToday("fal")).toBeCloseTo(0.08);
    expect((await router.render(request())).provider).toBe("local"); // 0.12 > 0.1
    // The v2 route costs more and is capped by the same sum.
    expect((await router.render(request("3d-finger", "v2"))).provider).toBe("local");
  });

  it("answers with a clear reason when no candidate is left", async () => {
    const fal = fakeProvider("fal");
    const router = new ProviderRouter([fal], { ...baseConfig, fallback: [], dailyCap: { fal: 0 } });
    await expect(router.render(request())).rejects.toMatchObject({ reason: RouterReasons.unavailable });
  });

  it("cancels a render that passes the time limit, and says so", async () => {
    let aborted = false;
    const fal = fakeProvider("fal", () => new Promise<void>(() => undefined));
    const original = fal.render.bind(fal);
    fal.render = (req, signal) => {
      signal?.addEventListener("abort", () => (aborted = true));
      return original(req, signal);
    };
    const router = new ProviderRouter([fal], { ...baseConfig, renderTimeoutMs: 50 });
    const err = await router.render(request()).catch((e) => e);
    expect(err).toMatchObject({ reason: RouterReasons.timeout, retryable: true });
    expect(aborted).toBe(true);
  });

  it("passes the task's abort on to the provider and does not blame it", async () => {
    const fal = fakeProvider("fal", () => new Promise<void>(() => undefined));
    const router = new ProviderRouter([fal], baseConfig);
    const task = new AbortController();
    setTimeout(() => task.abort(new Error("deadline")), 20);
    // Still an EngineError (the task runner reports its own timeout reason for it).
    await expect(router.render(request(), task.signal)).rejects.toBeInstanceOf(EngineError);
    expect(fal.calls[0]!.signal!.aborted).toBe(true);
    expect(await router.breaker("fal")!.state()).toBe("closed");
  });
});

describe("ProviderRouter output", () => {
  it("marks a generative backend's image AI-generated in its metadata, and leaves the local engine's alone", async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#336699" } })
      .png()
      .toBuffer();
    const returning = (id: string): Renderer => ({
      id,
      supports: () => true,
      render: async () => ({
        bytes: new Uint8Array(png),
        mime: "image/png",
        width: 8,
        height: 8,
        provider: id,
        model: "m",
      }),
    });
    const router = new ProviderRouter([returning("fal"), returning("local")], {
      ...baseConfig,
      overrides: { "inverted-face-filter": "local" },
    });
    const hosted = await router.render(request("3d-finger"));
    expect((await sharp(Buffer.from(hosted.bytes)).metadata()).xmp?.toString()).toContain(
      "trainedAlgorithmicMedia",
    );
    const local = await router.render(request("inverted-face-filter"));
    expect(Buffer.from(local.bytes).equals(png)).toBe(true);
  });

  it("keeps the effect's promise on a generative output: 16 colours kept, a grid-less 'grid' refused", async () => {
    const portrait = fs.readFileSync(
      path.resolve(__dirname, "../../../tests/fixtures/photos/portrait-male-1.jpg"),
    );
    const returning: Renderer = {
      id: "fal",
      supports: () => true,
      render: async () => ({
        bytes: new Uint8Array(portrait),
        mime: "image/jpeg",
        width: 1000,
        height: 1000,
        provider: "fal",
        model: "m",
      }),
    };
    const router = new ProviderRouter([returning, fakeProvider("local")], {
      ...baseConfig,
      fallback: ["local"],
    });
    const sprite = await router.render(request("16-bit-video-game-character"));
    const { data } = await sharp(Buffer.from(sprite.bytes))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const colours = new Set<number>();
    for (let i = 0; i < data.length; i += 3)
      colours.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
    expect(colours.size).toBeLessThanOrEqual(16);
    // Still marked as AI-generated after the re-encode.
    expect((await sharp(Buffer.from(sprite.bytes)).metadata()).xmp?.toString()).toContain(
      "trainedAlgorithmicMedia",
    );

    const err = await router.render(request("hair-style-generator")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).code).toBe("providerBadOutput");
    expect((err as EngineError).reason).toMatch(/3 x 3 grid/);
  });

  it("withholds a generative output the content screen flags: the task fails with its code, the provider is not blamed", async () => {
    const fal = fakeProvider("fal");
    const router = new ProviderRouter([fal, fakeProvider("local")], {
      ...baseConfig,
      fallback: ["local"],
      screenOutput: async (r) => {
        if (r.provider === "fal") throw new EngineError("withheld", false, "nsfw");
      },
    });
    for (let i = 0; i < 6; i++) {
      const err = await router.render(request()).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "nsfw", retryable: false });
    }
    // Not the provider's failure: its breaker stays closed, later tasks still go to it.
    expect(await router.breaker("fal")!.state()).toBe("closed");
  });
});
