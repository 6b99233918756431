import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { startOpenAIFake, type OpenAIFake } from "../../../../tests/integration/fakes/openai-fake";
import { ProviderCodes } from "../codes";
import { ProviderHttpError, type RetryPolicy } from "../http";
import { createOpenAIProvider, nearestSize, openaiFailure, sizeFor } from "./openai";

/**
 * Contract tests of the OpenAI provider against a local fake of the Images API edit
 * endpoint (multipart in, base64 PNG out). Nothing leaves 127.0.0.1.
 */

const KEY = "sk-test-openai";
const RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 20, maxDelayMs: 3_000, attemptTimeoutMs: 10_000 };

async function png(width: number, height: number, colour = "#888"): Promise<Uint8Array> {
  return new Uint8Array(
    await sharp({ create: { width, height, channels: 3, background: colour } })
      .png()
      .toBuffer(),
  );
}

async function request(effectId: string, images: Uint8Array[]): Promise<RenderRequest> {
  return {
    effectId,
    route: "v1",
    images: images.map((bytes) => ({ bytes, mime: "image/png" })),
    options: {},
    prompt: "",
    seed: 42,
  };
}

async function failureOf(p: Promise<unknown>): Promise<EngineError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    return err as EngineError;
  }
  throw new Error("expected the render to fail");
}

describe("OpenAI provider against a fake Images API", () => {
  let fake: OpenAIFake;
  const logs: string[] = [];
  const provider = () =>
    createOpenAIProvider({ apiKey: KEY, baseUrl: fake.url, retry: RETRY, log: (msg) => logs.push(msg) });

  beforeAll(async () => {
    fake = await startOpenAIFake({ apiKey: KEY });
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => {
    fake.mode = "ok";
    fake.failures = [];
    fake.calls = [];
    logs.length = 0;
  });

  it("edits through POST /v1/images/edits: multipart prompt, model, n=1, size, and returns the PNG", async () => {
    const input = await png(80, 60);
    const out = await provider().render(await request("3d-finger", [input]));

    expect(fake.calls).toHaveLength(1);
    const call = fake.calls[0]!;
    expect(call.endpoint).toBe("edits");
    expect(call.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(call.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(call.fields.model).toBe("gpt-image-1");
    expect(call.fields.n).toBe("1");
    expect(call.fields.prompt).toContain("1/7 scale collectible figure");
    // 3d-finger's ratio is 4:3: the landscape size.
    expect(call.fields.size).toBe("1536x1024");
    expect(call.images).toHaveLength(1);
    expect(call.images[0]!.field).toBe("image");
    expect(call.images[0]!.type).toBe("image/png");
    expect(new Uint8Array(call.images[0]!.bytes)).toEqual(input);

    expect(out).toMatchObject({
      provider: "openai",
      model: "gpt-image-1",
      mime: "image/png",
      width: 96,
      height: 64,
    });
    const meta = await sharp(out.bytes).metadata();
    expect(meta.format).toBe("png");
  });

  it("makes a free-form image from text alone through POST /v1/images/generations (JSON, no image)", async () => {
    const p = provider();
    expect(p.supports("text-to-image")).toBe(true);
    expect(p.supports("free-form")).toBe(true);
    const out = await p.render({
      ...(await request("text-to-image", [])),
      prompt: "A red bicycle against a yellow wall",
      options: { aspectRatio: "9:16" },
    });
    const call = fake.calls.at(-1)!;
    expect(call.endpoint).toBe("generations");
    expect(call.headers["content-type"]).toBe("application/json");
    expect(call.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(call.fields).toMatchObject({ model: "gpt-image-1", n: "1", size: "1024x1536" });
    expect(call.fields.prompt).toContain("A red bicycle against a yellow wall");
    expect(call.images).toEqual([]);
    expect(out).toMatchObject({ provider: "openai", model: "gpt-image-1", width: 64, height: 96 });
  });

  it("sends every input image as a repeated image[] field", async () => {
    const a = await png(40, 50, "#a00");
    const b = await png(50, 40, "#00a");
    await provider().render(await request("baby-face-generator", [a, b]));
    const call = fake.calls.at(-1)!;
    expect(call.images.map((i) => i.field)).toEqual(["image[]", "image[]"]);
    expect(call.images.map((i) => new Uint8Array(i.bytes))).toEqual([a, b]);
    // baby-face-generator is 4:5: nearer to 2:3 than to 1:1.
    expect(call.fields.size).toBe("1024x1536");
  });

  it("chooses the size from the effect's aspect ratio, else from the input's shape", async () => {
    const wide = await png(120, 60);
    await provider().render(await request("linkedIn-profile-photo-generator", [wide]));
    expect(fake.calls.at(-1)!.fields.size).toBe("1024x1024");
    await provider().render(await request("coloring-page", [wide]));
    expect(fake.calls.at(-1)!.fields.size).toBe("1024x1536");
    // pixel-illustration keeps the input's shape: a 2:1 photo goes landscape.
    await provider().render(await request("pixel-illustration", [wide]));
    expect(fake.calls.at(-1)!.fields.size).toBe("1536x1024");
  });

  it("waits as Retry-After asks after a 429, then succeeds", async () => {
    fake.failures = [{ status: 429, retryAfter: "1" }];
    const out = await provider().render(await request("emoji-icon", [await png(32, 32)]));
    expect(out.provider).toBe("openai");
    expect(fake.calls).toHaveLength(2);
    expect(fake.calls[1]!.at - fake.calls[0]!.at).toBeGreaterThanOrEqual(950);
    // The retried call carried the whole multipart body again.
    expect(fake.calls[1]!.images).toHaveLength(1);
    expect(fake.calls[1]!.fields.prompt).toBe(fake.calls[0]!.fields.prompt);
    expect(logs).toContain("openai retry");
  });

  it("gives up with a retryable busy error when the service keeps answering 5xx", async () => {
    fake.mode = "5xx";
    const err = await failureOf(provider().render(await request("emoji-icon", [await png(32, 32)])));
    expect(err).toBeInstanceOf(ProviderHttpError);
    expect(err.retryable).toBe(true);
    expect(err.code).toBe(ProviderCodes.busy);
    expect(fake.calls).toHaveLength(RETRY.attempts);
  });

  it("turns a moderation refusal into a non-retryable safety failure, asked once", async () => {
    fake.mode = "moderation";
    const err = await failureOf(provider().render(await request("emoji-icon", [await png(32, 32)])));
    expect(err.retryable).toBe(false);
    expect(err.code).toBe(ProviderCodes.safetyBlocked);
    expect(err.reason).toMatch(/safety filter/);
    expect(fake.calls).toHaveLength(1);
  });

  it("reads a wrong key as unavailable (retryable, for the circuit breaker)", async () => {
    const wrong = createOpenAIProvider({ apiKey: "sk-wrong", baseUrl: fake.url, retry: RETRY });
    const err = await failureOf(wrong.render(await request("emoji-icon", [await png(32, 32)])));
    expect(err.code).toBe(ProviderCodes.unavailable);
    expect(err.retryable).toBe(true);
  });

  it("reports an answer without an image as no image", async () => {
    fake.mode = "no-image";
    const err = await failureOf(provider().render(await request("emoji-icon", [await png(32, 32)])));
    expect(err.code).toBe(ProviderCodes.noImage);
  });

  it("stops at once when the caller aborts", async () => {
    fake.failures = [{ status: 503, retryAfter: "2" }];
    const ctrl = new AbortController();
    const started = Date.now();
    setTimeout(() => ctrl.abort(new Error("deadline")), 100);
    await expect(
      provider().render(await request("emoji-icon", [await png(32, 32)]), ctrl.signal),
    ).rejects.toThrow("deadline");
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

describe("OpenAI provider: pure helpers", () => {
  it("maps ratios to the nearest gpt-image-1 size", () => {
    expect(nearestSize(1)).toBe("1024x1024");
    expect(nearestSize(16 / 9)).toBe("1536x1024");
    expect(nearestSize(5 / 4)).toBe("1536x1024");
    expect(nearestSize(9 / 16)).toBe("1024x1536");
    expect(nearestSize(1.1)).toBe("1024x1024");
  });

  it("falls back to auto when neither the effect nor the input gives a shape", async () => {
    expect(await sizeFor(undefined)).toBe("auto");
    expect(await sizeFor(undefined, new Uint8Array([1, 2, 3]))).toBe("auto");
    expect(await sizeFor("21:9")).toBe("1536x1024");
  });

  it("maps error bodies to reasons", () => {
    const legacy = openaiFailure(400, {
      error: {
        code: "content_policy_violation",
        message: "Your request was rejected as a result of our safety system.",
      },
    });
    expect(legacy.code).toBe(ProviderCodes.safetyBlocked);
    expect(legacy.retryable).toBe(false);
    expect(
      openaiFailure(400, { error: { code: "invalid_image_file", type: "invalid_request_error" } }).code,
    ).toBe(ProviderCodes.unreadablePhoto);
    expect(openaiFailure(403, { error: { message: "Your organization must be verified" } }).code).toBe(
      ProviderCodes.unavailable,
    );
    expect(openaiFailure(429, null)).toBeInstanceOf(ProviderHttpError);
    expect(openaiFailure(418, null).code).toBe(ProviderCodes.unexpected);
  });
});
