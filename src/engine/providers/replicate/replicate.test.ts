import http from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import {
  postReplicateWebhook,
  startReplicateFake,
  type ReplicateFake,
} from "../../../../tests/integration/fakes/replicate-fake";
import { ProviderCodes } from "../codes";
import { ProviderHttpError, type RetryPolicy } from "../http";
import {
  createReplicateProvider,
  nearestQwenRatio,
  parseModel,
  predictionFailure,
  REPLICATE_DEFAULT_MODEL,
  REPLICATE_DEFAULT_TEXT_MODEL,
  textInput,
  type ReplicateProviderOptions,
} from "./replicate";
import { ReplicateWebhookHub } from "./replicate-webhook";

/**
 * Contract tests of the Replicate provider against a local fake of Replicate's
 * predictions API (create with Prefer: wait, get, cancel, output files, signed webhooks).
 * Nothing leaves 127.0.0.1.
 */

const TOKEN = "r8_test_token";
const RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 20, maxDelayMs: 3_000, attemptTimeoutMs: 10_000 };
const VERSION = "a".repeat(64);

async function png(width: number, height: number, colour = "#888"): Promise<Uint8Array> {
  return new Uint8Array(
    await sharp({ create: { width, height, channels: 3, background: colour } })
      .png()
      .toBuffer(),
  );
}

function request(effectId: string, images: Uint8Array[]): RenderRequest {
  return {
    effectId,
    route: "v1",
    images: images.map((bytes) => ({ bytes, mime: "image/png" })),
    options: {},
    prompt: "",
    seed: 1234,
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

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("Replicate provider against a fake Replicate", () => {
  let fake: ReplicateFake;
  let input: Uint8Array;
  const logs: string[] = [];
  const provider = (extra: Partial<ReplicateProviderOptions> = {}) =>
    createReplicateProvider({
      token: TOKEN,
      baseUrl: fake.url,
      pollMs: 30,
      syncWaitSeconds: 1,
      retry: RETRY,
      log: (msg) => logs.push(msg),
      ...extra,
    });

  beforeAll(async () => {
    fake = await startReplicateFake({ token: TOKEN });
    input = await png(80, 60);
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => {
    fake.mode = "ok";
    fake.runMs = 150;
    fake.createFailures = [];
    fake.requests = [];
    fake.created = [];
    fake.cancels = [];
    fake.outputUrlOverride = null;
    logs.length = 0;
  });

  it("creates a prediction on the model route with Prefer: wait, data-URI inputs and the Qwen schema", async () => {
    const out = await provider().render(request("3d-finger", [input]));

    expect(fake.created).toHaveLength(1);
    const created = fake.created[0]!;
    expect(created.model).toBe(REPLICATE_DEFAULT_MODEL);
    expect(created.prefer).toBe("wait=1");
    expect(created.webhook).toBeNull();
    expect(created.input.prompt).toContain("1/7 scale collectible figure");
    expect(created.input.image).toEqual([`data:image/png;base64,${Buffer.from(input).toString("base64")}`]);
    expect(created.input.aspect_ratio).toBe("4:3");
    expect(created.input.output_format).toBe("png");
    expect(created.input.seed).toBe(1234);

    // Finished within the create call's wait: no poll, and the output fetched without our token.
    const post = fake.requests.find((r) => r.method === "POST")!;
    expect(post.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(fake.requests.some((r) => r.method === "GET" && r.path.startsWith("/v1/predictions/"))).toBe(
      false,
    );
    const download = fake.requests.find((r) => r.path.startsWith("/files/"))!;
    expect(download.headers.authorization).toBeUndefined();

    expect(out).toMatchObject({ provider: "replicate", model: REPLICATE_DEFAULT_MODEL, mime: "image/png" });
    expect({ w: out.width, h: out.height }).toEqual({ w: 72, h: 54 });
  });

  it("makes a free-form image from text alone on the text model (Qwen-Image's schema, no image)", async () => {
    const p = provider();
    expect(p.supports("text-to-image")).toBe(true);
    expect(p.supports("free-form")).toBe(true);
    const out = await p.render({
      ...request("text-to-image", []),
      prompt: "A lighthouse on a cliff, watercolour",
      options: { aspectRatio: "3:2" },
    });
    const created = fake.created.at(-1)!;
    expect(created.model).toBe(REPLICATE_DEFAULT_TEXT_MODEL);
    expect(created.input).toMatchObject({ aspect_ratio: "3:2", output_format: "png", seed: 1234 });
    expect(created.input.prompt).toContain("A lighthouse on a cliff, watercolour");
    expect(created.input).not.toHaveProperty("image");
    expect(out).toMatchObject({ provider: "replicate", model: REPLICATE_DEFAULT_TEXT_MODEL });
    // A configured text model (with a version) goes through /v1/predictions.
    await provider({ textModel: `someone/t2i:${VERSION}` }).render({
      ...request("text-to-image", []),
      prompt: "A cat",
      options: { aspectRatio: "1:1" },
    });
    expect(fake.created.at(-1)).toMatchObject({ model: null, version: VERSION });
  });

  it("sends every input image", async () => {
    const a = await png(40, 50, "#a00");
    const b = await png(50, 40, "#00a");
    await provider().render(request("baby-face-generator", [a, b]));
    const created = fake.created.at(-1)!;
    expect(created.input.image).toEqual(
      [a, b].map((bytes) => `data:image/png;base64,${Buffer.from(bytes).toString("base64")}`),
    );
    // 4:5 is not offered: the nearest Qwen ratio is 3:4.
    expect(created.input.aspect_ratio).toBe("3:4");
  });

  it("keeps the input's shape when the effect sets none", async () => {
    await provider().render(request("pixel-illustration", [input]));
    expect(fake.created.at(-1)!.input.aspect_ratio).toBe("match_input_image");
  });

  it("polls GET /v1/predictions/{id} with backoff when the prediction outlives the wait", async () => {
    fake.runMs = 1_400;
    const out = await provider().render(request("emoji-icon", [input]));
    expect(out.provider).toBe("replicate");
    const id = fake.created[0]!.id;
    const polls = fake.requests.filter((r) => r.method === "GET" && r.path === `/v1/predictions/${id}`);
    expect(polls.length).toBeGreaterThan(0);
    expect(polls.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(fake.cancels).toEqual([]);
  });

  it("uses POST /v1/predictions with the version when the model names one", async () => {
    const model = `someone/some-edit-model:${VERSION}`;
    const out = await provider({ model }).render(request("emoji-icon", [input]));
    expect(out.model).toBe(model);
    const created = fake.created.at(-1)!;
    expect(created.model).toBeNull();
    expect(created.version).toBe(VERSION);
    expect(fake.requests.find((r) => r.method === "POST")!.path).toBe("/v1/predictions");
  });

  it("sends one image, not an array, to the single-image qwen/qwen-image-edit", async () => {
    await provider({ model: "qwen/qwen-image-edit" }).render(request("emoji-icon", [input]));
    expect(fake.created.at(-1)!.input.image).toBe(
      `data:image/png;base64,${Buffer.from(input).toString("base64")}`,
    );
  });

  it("waits as Retry-After asks after a 429, then succeeds", async () => {
    fake.createFailures = [{ status: 429, retryAfter: "1" }];
    const out = await provider().render(request("emoji-icon", [input]));
    expect(out.provider).toBe("replicate");
    const creates = fake.requests.filter((r) => r.method === "POST" && r.path.endsWith("/predictions"));
    expect(creates).toHaveLength(2);
    expect(creates[1]!.at - creates[0]!.at).toBeGreaterThanOrEqual(950);
    expect(fake.created).toHaveLength(1);
    expect(logs).toContain("replicate retry");
  });

  it("gives up with a retryable busy error when the API keeps answering 5xx", async () => {
    fake.mode = "5xx";
    const err = await failureOf(provider().render(request("emoji-icon", [input])));
    expect(err).toBeInstanceOf(ProviderHttpError);
    expect(err.code).toBe(ProviderCodes.busy);
    expect(err.retryable).toBe(true);
    const creates = fake.requests.filter((r) => r.method === "POST");
    expect(creates).toHaveLength(RETRY.attempts);
  });

  it("reports a failed prediction with its error as a retryable failure", async () => {
    fake.mode = "fail";
    const err = await failureOf(provider().render(request("emoji-icon", [input])));
    expect(err.code).toBe(ProviderCodes.noImage);
    expect(err.retryable).toBe(true);
    expect(logs).toContain("replicate prediction failed");
  });

  it("maps an NSFW failure to the non-retryable safety code", async () => {
    fake.mode = "nsfw";
    const err = await failureOf(provider().render(request("emoji-icon", [input])));
    expect(err.code).toBe(ProviderCodes.safetyBlocked);
    expect(err.retryable).toBe(false);
  });

  it("cancels a stuck prediction when the deadline aborts the render", async () => {
    fake.mode = "stuck";
    const ctrl = new AbortController();
    // Past the create call's 1 s wait: the render is polling when the deadline hits.
    setTimeout(() => ctrl.abort(new Error("deadline")), 1_400);
    await expect(provider().render(request("emoji-icon", [input]), ctrl.signal)).rejects.toThrow("deadline");
    expect(fake.cancels).toEqual([fake.created[0]!.id]);
    const cancel = fake.requests.find((r) => r.path.endsWith("/cancel"))!;
    expect(cancel.method).toBe("POST");
    expect(cancel.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("cancels what a create call still holding at the deadline creates", async () => {
    fake.mode = "stuck";
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(new Error("deadline")), 200);
    const started = Date.now();
    await expect(provider().render(request("emoji-icon", [input]), ctrl.signal)).rejects.toThrow("deadline");
    // The render ends at once; the cancel follows when the held create call answers.
    expect(Date.now() - started).toBeLessThan(900);
    await until(() => fake.cancels.length === 1);
    expect(fake.cancels).toEqual([fake.created[0]!.id]);
  });

  it("refuses an output address that is neither https nor the configured origin", async () => {
    fake.outputUrlOverride = "http://169.254.169.254/latest/meta-data/out.png";
    const err = await failureOf(provider().render(request("emoji-icon", [input])));
    expect(err.code).toBe(ProviderCodes.badOutput);
  });

  it("reads a wrong token as unavailable (retryable, for the circuit breaker)", async () => {
    const wrong = createReplicateProvider({
      token: "r8_wrong",
      baseUrl: fake.url,
      retry: RETRY,
      syncWaitSeconds: 1,
    });
    const err = await failureOf(wrong.render(request("emoji-icon", [input])));
    expect(err.code).toBe(ProviderCodes.unavailable);
    expect(err.retryable).toBe(true);
  });
});

describe("Replicate provider in webhook mode", () => {
  let fake: ReplicateFake;
  let receiver: http.Server;
  let receiverUrl: string;
  let hub: ReplicateWebhookHub;
  let input: Uint8Array;

  beforeAll(async () => {
    fake = await startReplicateFake({ token: TOKEN });
    hub = new ReplicateWebhookHub({ secret: fake.webhookSecret });
    // What the API route will do: hand the raw body and headers to the hub, 401 on refusal.
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        void hub.receive(Buffer.concat(chunks), req.headers).then((refusal) => {
          res.writeHead(refusal ? 401 : 204).end();
        });
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/providers/replicate/webhook`;
    fake.webhookTarget = receiverUrl;
    input = await png(64, 64);
  });
  afterAll(async () => {
    await fake?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });
  beforeEach(() => {
    fake.mode = "ok";
    fake.runMs = 1_300;
    fake.requests = [];
    fake.created = [];
    fake.webhookAnswers = [];
    fake.forgeWebhooks = false;
  });
  afterEach(() => {
    fake.forgeWebhooks = false;
  });

  const provider = (webhookPollMs: { initial: number; max: number }) =>
    createReplicateProvider({
      token: TOKEN,
      baseUrl: fake.url,
      pollMs: 30,
      syncWaitSeconds: 1,
      retry: RETRY,
      webhook: {
        url: "https://photos.example.com/api/providers/replicate/webhook",
        secret: fake.webhookSecret,
        hub,
      },
      webhookPollMs,
    });

  it("asks for a completed webhook and finishes from a valid signed delivery, without polling", async () => {
    const out = await provider({ initial: 20_000, max: 30_000 }).render(request("emoji-icon", [input]));
    expect(out.provider).toBe("replicate");
    const created = fake.created[0]!;
    expect(created.webhook).toBe("https://photos.example.com/api/providers/replicate/webhook");
    expect(created.webhookEventsFilter).toEqual(["completed"]);
    expect(fake.webhookAnswers).toEqual([204]);
    expect(fake.requests.some((r) => r.method === "GET" && r.path.startsWith("/v1/predictions/"))).toBe(
      false,
    );
  });

  it("refuses a forged delivery (401) and still finishes by the polling safety net", async () => {
    fake.forgeWebhooks = true;
    const out = await provider({ initial: 300, max: 300 }).render(request("emoji-icon", [input]));
    expect(out.provider).toBe("replicate");
    await until(() => fake.webhookAnswers.length === 1);
    expect(fake.webhookAnswers).toEqual([401]);
    expect(fake.requests.some((r) => r.method === "GET" && r.path.startsWith("/v1/predictions/"))).toBe(true);
  });

  it("does not let a tampered or stale delivery reach a waiting render", async () => {
    const body = JSON.stringify({
      id: "fake-tamper",
      status: "succeeded",
      output: ["https://evil.example/x.png"],
    });
    const tampered = await postReplicateWebhook(receiverUrl, body, fake.webhookSecret, {
      sendInstead: body.replace("evil", "evil2"),
    });
    expect(tampered.status).toBe(401);
    const stale = await postReplicateWebhook(receiverUrl, body, fake.webhookSecret, {
      timestamp: Math.floor(Date.now() / 1000) - 600,
    });
    expect(stale.status).toBe(401);
    const waiting = hub.wait("fake-tamper", AbortSignal.timeout(200));
    await expect(waiting).rejects.toBeDefined();
  });
});

describe("Replicate provider: pure helpers", () => {
  it("parses model references", () => {
    expect(parseModel("qwen/qwen-image-edit-plus")).toEqual({ owner: "qwen", name: "qwen-image-edit-plus" });
    expect(parseModel(`a/b:${VERSION}`)).toEqual({ owner: "a", name: "b", version: VERSION });
    expect(() => parseModel("no-slash")).toThrow(/Invalid Replicate model/);
    expect(() => parseModel("a/b:short")).toThrow(/Invalid Replicate model/);
  });

  it("maps effect ratios to the nearest Qwen ratio", () => {
    expect(nearestQwenRatio("1:1")).toBe("1:1");
    expect(nearestQwenRatio("21:9")).toBe("16:9");
    expect(nearestQwenRatio("5:4")).toBe("4:3");
    expect(nearestQwenRatio("2:3")).toBe("3:4");
    expect(nearestQwenRatio("9:16")).toBe("9:16");
  });

  it("maps free-form ratios to Qwen-Image's own list (3:2 and 2:3 included)", () => {
    expect(textInput("x", 1, "3:2").aspect_ratio).toBe("3:2");
    expect(textInput("x", 1, "21:9").aspect_ratio).toBe("16:9");
    expect(textInput("x", 1, "4:5").aspect_ratio).toBe("3:4");
    expect(textInput("x", 1).aspect_ratio).toBe("1:1");
  });

  it("reads safety wording in failed predictions", () => {
    for (const msg of [
      "All generated images contained NSFW content. Try running it again with a different prompt.",
      "The input or output was flagged as sensitive. Please try again with different inputs. (E005)",
      "Content moderation: blocked",
    ]) {
      expect(predictionFailure(msg).code).toBe(ProviderCodes.safetyBlocked);
    }
    expect(predictionFailure("cannot identify image file").code).toBe(ProviderCodes.unreadablePhoto);
    expect(predictionFailure(null).code).toBe(ProviderCodes.noImage);
  });
});
