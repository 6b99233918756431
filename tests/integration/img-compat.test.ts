import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance, ledgerSum } from "@/core/credits";
import type { Renderer, RenderRequest } from "@/core/ports/renderer";
import { EngineError } from "@/core/ports/renderer";
import { creditEntry, task } from "@/core/schema";
import { DOCS_POLICY } from "@/api/routes/docs";
import { startFalFake, type FalFake } from "./fakes/fal-fake";
import { startGeminiFake, type GeminiFake } from "./fakes/gemini-fake";
import { SCALE_OUT, signUp, startTestServer, type TestServer } from "./harness";
import { expectImage, imageOf, outcomeOf, poll, post, taskIdsOf, uploadUrl, type Body } from "./spec-client";

/**
 * The spec's other model routes and its generic generate call (section 7, issue 19): each
 * submit/poll pair read exactly as the spec's client reads it, on the one task system.
 */

const PAIRS: Array<[string, string]> = [
  ["/api/img/flux-kontext-v2/submit", "/api/img/flux-kontext-v2/taskResult"],
  ["/api/img/flux-kontext-dev-v2", "/api/img/flux-kontext-dev-v2-result"],
  ["/api/img/create-v2", "/api/img/create-v2-result"],
  ["/api/img/create-v2", "/api/img/create-result"],
];
const POLLS = [
  "/api/img/flux-kontext-v2/taskResult",
  "/api/img/flux-kontext-dev-v2-result",
  "/api/img/create-v2-result",
  "/api/img/create-result",
  "/api/img/nano-banana/taskResult",
];

async function tasksOf(server: TestServer, userId: string) {
  return server.services.db.select().from(task).where(eq(task.userId, userId));
}

const EFFECT = "nano-banana-lora-pixel-illustration";

describe("other model routes on the local engine", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("serves every submit/poll pair for an effect, read as the spec's client reads it", async () => {
    const user = await signUp(server);
    const start = await getBalance(server.services.db, user.id);
    for (const [submitPath, pollPath] of PAIRS) {
      const sub = await post(user, submitPath, {
        prompt: "",
        image_urls: [await uploadUrl(user)],
        num_images: "1",
        imageType: EFFECT,
      });
      expect(sub.status, `${submitPath}: ${JSON.stringify(sub.body)}`).toBe(200);
      const [taskId] = taskIdsOf(sub.body);
      expect(taskId, submitPath).toBeTruthy();
      // Every reading the spec names is there.
      expect(sub.body.data?.taskId).toBe(taskId);
      expect(sub.body.taskId).toBe(taskId);
      const done = await poll(user, pollPath, taskId!);
      expect(outcomeOf(done), `${pollPath}: ${JSON.stringify(done)}`).toBe(1);
      expect(done.data?.imageUrl).toBe(done.data?.imgAfterSrc);
      expect(done.imageUrl).toBe(done.url);
      await expectImage(user, imageOf(done));
      // The webhook-type read answers imgAfterSrc for the same task.
      const hook = await user.json<Body>(`/api/img/result/${taskId}?type=img`);
      expect(hook.status).toBe(200);
      expect(hook.body.imgAfterSrc ?? hook.body.data?.imgAfterSrc).toBe(imageOf(done));
    }
    expect(await getBalance(server.services.db, user.id)).toBe(start - 2 * PAIRS.length);
    expect(await ledgerSum(server.services.db, user.id)).toBe(start - 2 * PAIRS.length);
    // The route column says which route made each task.
    const routes = (await tasksOf(server, user.id)).map((t) => t.route).sort();
    expect(routes).toEqual(["create-v2", "create-v2", "flux-kontext-dev-v2", "flux-kontext-v2"]);
  }, 180_000);

  it("POST /api/img/create answers when the image is ready, with data.url", async () => {
    const user = await signUp(server);
    const res = await post(user, "/api/img/create", {
      prompt: "",
      dimension: "1:1",
      image_urls: [],
      image_path: await uploadUrl(user),
      num_images: "1",
      batchSize: 1,
      imageType: EFFECT,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ code: 1, status: 1, message: "Successfully generated 1 image(s)!" });
    await expectImage(user, res.body.data?.url);
    expect(res.body.url).toBe(res.body.data?.url);
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
  }, 120_000);

  it("a v2 submit with Prefer: wait (or wait: true) answers data.results[].imageUrl and data.imageUrl", async () => {
    const user = await signUp(server);
    const byHeader = await post(
      user,
      "/api/img/nano-banana-v2/submit",
      { prompt: "", image_urls: [await uploadUrl(user)], num_images: "1", imageType: EFFECT },
      { prefer: "wait" },
    );
    expect(byHeader.status, JSON.stringify(byHeader.body)).toBe(200);
    expect(byHeader.body.data?.results).toHaveLength(1);
    await expectImage(user, byHeader.body.data!.results![0]!.imageUrl);
    expect(byHeader.body.data?.imageUrl).toBe(byHeader.body.data!.results![0]!.imageUrl);
    expect(taskIdsOf(byHeader.body)).toHaveLength(1);

    const byBody = await post(user, "/api/img/nano-banana-v2/submit", {
      prompt: "",
      image_urls: [await uploadUrl(user, "portrait-male-1.jpg")],
      num_images: "1",
      imageType: EFFECT,
      wait: true,
    });
    expect(byBody.status).toBe(200);
    await expectImage(user, byBody.body.data?.imageUrl);
    // Without either, the v2 submit answers at once, as before.
    const plain = await post(user, "/api/img/nano-banana-v2/submit", {
      prompt: "",
      image_urls: [await uploadUrl(user, "portrait-male-2.jpg")],
      num_images: "1",
      imageType: EFFECT,
    });
    expect(plain.body).toEqual({ message: "Task submitted", data: { taskIds: [expect.any(String)] } });
  }, 180_000);

  it("refuses a free-form request before any charge: this server has no generative engine", async () => {
    const user = await signUp(server);
    const before = await getBalance(server.services.db, user.id);
    const photo = await uploadUrl(user);
    for (const [path, payload] of [
      ["/api/img/create", { prompt: "make the sky purple", image_urls: [photo] }],
      ["/api/img/flux-kontext-v2/submit", { prompt: "a lighthouse at dawn", image_urls: [] }],
      ["/api/img/create-v2", { prompt: "add a hat", image_path: photo, num_images: 2 }],
    ] as const) {
      const res = await post(user, path, payload);
      expect(res.status, path).toBe(400);
      expect(res.body).toMatchObject({ messageKey: "noGenerativeEngine" });
      expect(res.body.message).toMatch(/no generative image engine/);
    }
    expect(await getBalance(server.services.db, user.id)).toBe(before);
    expect(await tasksOf(server, user.id)).toEqual([]);
  });

  it("serves the OpenAPI document, and the reference page under its own script policy", async () => {
    const doc = await fetch(`${server.url}/api/openapi.json`);
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as { paths: Record<string, unknown> }).paths).toHaveProperty(
      "/api/img/create",
    );
    const page = await fetch(`${server.url}/api/docs`);
    expect(page.headers.get("content-security-policy")).toBe(DOCS_POLICY);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    // Every other API answer keeps the API's policy.
    expect(doc.headers.get("content-security-policy")).toMatch(/^frame-ancestors 'none'/);
  });

  it("checks ownership on every read: another user's task is not found", async () => {
    const owner = await signUp(server);
    const sub = await post(owner, "/api/img/create-v2", {
      image_urls: [await uploadUrl(owner)],
      imageType: EFFECT,
    });
    const [taskId] = taskIdsOf(sub.body);
    const other = await signUp(server);
    for (const path of POLLS) {
      const res = await other.json<Body>(path, { taskId });
      expect(res.status, path).toBe(404);
    }
    expect((await other.json(`/api/img/result/${taskId}?type=img`)).status).toBe(404);
    // Signed out: 401 everywhere.
    const anon = await fetch(`${server.url}/api/img/result/${taskId}?type=img`);
    expect(anon.status).toBe(401);
    expect((await owner.json(`/api/img/result/${taskId}?type=video`)).status).toBe(400);
    await poll(owner, "/api/img/create-result", taskId!);
  }, 120_000);
});

/** A stand-in engine whose outcome each test scripts (and which records what it was asked). */
function scriptedRenderer() {
  const state = {
    mode: "ok" as "ok" | "alternate" | "fail" | "hang",
    calls: [] as RenderRequest[],
  };
  let n = 0;
  const renderer: Renderer = {
    id: "local",
    supports: () => true,
    async render(request, signal) {
      state.calls.push(request);
      const i = n++;
      if (state.mode === "fail" || (state.mode === "alternate" && i % 2 === 1))
        throw new EngineError("The scripted engine failed.", false, "engine");
      if (state.mode === "hang")
        await new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
      const bytes = await sharp({ create: { width: 16, height: 16, channels: 3, background: "#48c" } })
        .png()
        .toBuffer();
      return { bytes, mime: "image/png", width: 16, height: 16, provider: "local", model: "scripted" };
    },
  };
  return { renderer, state };
}

// A scripted stand-in for the engine: in scale-out mode the web process has no engine of its own
// to ask (free-form is refused there unless a hosted backend is configured, as the fal and
// Gemini blocks below are), so this block runs on one machine only.
describe.skipIf(SCALE_OUT)("the generic generate call: credits, partial results, timeouts", () => {
  let server: TestServer;
  const scripted = scriptedRenderer();
  beforeAll(async () => {
    server = await startTestServer({
      renderer: scripted.renderer,
      env: { TASK_TIMEOUT_SECONDS: "3", NSFW_CHECK: "false" },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("charges each image 2 credits at submit, in one transaction, with reproducible seeds", async () => {
    scripted.state.mode = "ok";
    const user = await signUp(server);
    const res = await post(user, "/api/img/create-v2", {
      prompt: "a red bicycle",
      image_urls: [],
      num_images: "2",
      batchSize: 2,
      seed: 1234,
      model: "nano-banana",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ids = taskIdsOf(res.body);
    expect(ids).toHaveLength(4);
    const charges = await server.services.db
      .select()
      .from(creditEntry)
      .where(eq(creditEntry.userId, user.id));
    const charged = charges.filter((e) => e.kind === "charge");
    expect(charged.map((e) => e.amount)).toEqual([-2, -2, -2, -2]);
    // One transaction: every charge carries the transaction's time.
    expect(new Set(charged.map((e) => e.createdAt.getTime())).size).toBe(1);
    const rows = await tasksOf(server, user.id);
    expect(rows.map((t) => t.seed).sort()).toEqual([1234, 1235, 1236, 1237]);
    // The chosen model is the v1 tier on a v2 route: stored with the route.
    expect(new Set(rows.map((t) => t.route))).toEqual(new Set(["create-v2:v1"]));
    expect(rows.every((t) => t.effectId === "text-to-image" && t.options.aspectRatio === "1:1")).toBe(true);
    for (const id of ids) expect(outcomeOf(await poll(user, "/api/img/create-v2-result", id))).toBe(1);
    expect(scripted.state.calls.slice(-4).every((c) => c.route === "v1")).toBe(true);
    expect(await ledgerSum(server.services.db, user.id)).toBe(2);

    // The same Idempotency-Key again: the same tasks, nothing charged.
    const again = await post(
      user,
      "/api/img/create-v2",
      { prompt: "a blue bicycle", num_images: 1 },
      { "idempotency-key": "k-1" },
    );
    const twice = await post(
      user,
      "/api/img/create-v2",
      { prompt: "a blue bicycle", num_images: 1 },
      { "idempotency-key": "k-1" },
    );
    expect(taskIdsOf(twice.body)).toEqual(taskIdsOf(again.body));
    expect(await getBalance(server.services.db, user.id)).toBe(0);

    // 402: no credits left, nothing written.
    const broke = await post(user, "/api/img/flux-kontext-v2/submit", { prompt: "a cat", num_images: 1 });
    expect(broke.status).toBe(402);
    expect((await tasksOf(server, user.id)).length).toBe(5);
  });

  it("reports partial results: each failed image refunded on its own", async () => {
    scripted.state.mode = "alternate";
    const user = await signUp(server);
    const res = await post(user, "/api/img/create", { prompt: "two boats", num_images: 2 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ code: 1, data: { succeeded: 1, failed: 1 } });
    const results = res.body.data!.results!;
    expect(results.filter((r) => r.code === 1)).toHaveLength(1);
    expect(results.find((r) => r.code === 2)!.failedReason).toMatch(/refunded/);
    await expectImage(user, res.body.data?.url);
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
  });

  it('answers "All image generation attempts failed" when none succeeds, all refunded', async () => {
    scripted.state.mode = "fail";
    const user = await signUp(server);
    const res = await post(user, "/api/img/create", { prompt: "two boats", num_images: 2 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      code: 2,
      status: 2,
      message: "All image generation attempts failed",
      data: { url: null, succeeded: 0, failed: 2 },
    });
    expect(res.body.failedReason).toMatch(/scripted engine failed/);
    expect(await getBalance(server.services.db, user.id)).toBe(10);
  });

  it("times out with a clear error and a refund when the image is not ready in time", async () => {
    scripted.state.mode = "hang";
    const user = await signUp(server);
    const started = Date.now();
    const res = await post(user, "/api/img/create", { prompt: "a slow painting", num_images: 1 });
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ code: "TIMEOUT", messageKey: "waitTimeout" });
    expect(res.body.message).toMatch(/^Generation timeout\. Please try again\./);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await getBalance(server.services.db, user.id)).toBe(10);
    const [row] = await tasksOf(server, user.id);
    const after = await poll(user, "/api/img/create-result", row!.id);
    expect(after).toMatchObject({ code: 2, failedCode: "timeout" });
    scripted.state.mode = "ok";
  });

  it("refuses bad requests before any charge (401, verification, limits, model, instruction)", async () => {
    scripted.state.mode = "ok";
    const user = await signUp(server);
    const anon = await fetch(`${server.url}/api/img/create`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.services.env.appUrl },
      body: JSON.stringify({ prompt: "x" }),
    });
    expect(anon.status).toBe(401);
    const cases: Array<[Record<string, unknown>, number, RegExp | string]> = [
      [{ prompt: "a cat", turnstileToken: null }, 400, /verification/i],
      [{ prompt: "a cat", num_images: 3, batchSize: 2 }, 400, "tooManyOutputs"],
      [{ prompt: "a cat", num_images: 5 }, 400, "tooManyOutputs"],
      [{ prompt: "a cat", model: "flux-1-kontext-dev" }, 400, "unknownModel"],
      [{ prompt: "a cat", dimension: "wide" }, 400, "badDimension"],
      [{ prompt: "   " }, 400, "promptRequired"],
      [{ prompt: "make her topless" }, 400, "promptSexual"],
      [{ prompt: "Une photo de femme nue" }, 400, "promptSexual"],
      [{ prompt: "a cat", imageType: "nano-banana-lora-nope", image_urls: ["/x"] }, 400, /Unknown imageType/],
      [{ prompt: "a cat", image_urls: ["https://elsewhere.example/a.png"] }, 400, "notOwnUpload"],
    ];
    for (const [payload, status, expected] of cases) {
      const res = await post(user, "/api/img/flux-kontext-dev-v2", payload);
      expect(res.status, JSON.stringify(payload)).toBe(status);
      if (typeof expected === "string") expect(res.body.messageKey, JSON.stringify(payload)).toBe(expected);
      else expect(String(res.body.message)).toMatch(expected);
    }
    expect(await getBalance(server.services.db, user.id)).toBe(10);
    expect(await tasksOf(server, user.id)).toEqual([]);
  });
});

describe("free-form generation through fal (fake)", () => {
  let fal: FalFake;
  let server: TestServer;
  beforeAll(async () => {
    fal = await startFalFake({ key: "fal-test-key" });
    server = await startTestServer({
      env: {
        FAL_KEY: "fal-test-key",
        FAL_BASE_URL: fal.url,
        FAL_POLL_MS: "20",
        ENGINE_RETRY_BASE_MS: "20",
        ENGINE_BREAKER_THRESHOLD: "1000",
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await fal?.close();
  });

  it("edits a photo from an instruction through the flux-kontext-v2 pair (fal's v2 general model)", async () => {
    fal.mode = "ok";
    const user = await signUp(server);
    const sub = await post(user, "/api/img/flux-kontext-v2/submit", {
      prompt: "Make the sky purple at sunset",
      image_urls: [await uploadUrl(user, "landscape-1-meadow-cc0.jpg")],
      dimension: "1920x1080",
      num_images: "1",
      batchSize: 1,
      seed: 42,
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    const done = await poll(user, "/api/img/flux-kontext-v2/taskResult", taskIdsOf(sub.body)[0]!);
    expect(outcomeOf(done)).toBe(1);
    await expectImage(user, imageOf(done));
    const job = fal.submits.at(-1)!;
    expect(job.model).toBe("fal-ai/nano-banana-2/edit");
    expect(job.input.prompt).toContain("Make the sky purple at sunset");
    expect(job.input.prompt).toMatch(/Never produce nudity/);
    expect(job.input).toMatchObject({ aspect_ratio: "16:9", seed: 42, num_images: 1 });
    expect(job.input.image_urls).toHaveLength(1);
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
  }, 120_000);

  it("makes an image from text alone with POST /api/img/create (fal's text endpoint)", async () => {
    fal.mode = "ok";
    const user = await signUp(server);
    const res = await post(user, "/api/img/create", {
      prompt: "A lighthouse on a cliff, watercolour",
      dimension: "",
      image_urls: [],
      num_images: 1,
      batchSize: 1,
      image_path: null,
      model: "nano-banana",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await expectImage(user, res.body.data?.url);
    const job = fal.submits.at(-1)!;
    expect(job.model).toBe("fal-ai/nano-banana");
    expect(job.input.image_urls).toBeUndefined();
    expect(job.input.aspect_ratio).toBe("1:1");
  }, 60_000);

  it("holds free-form edits of people to the effects' content checks, charging nothing", async () => {
    fal.mode = "ok";
    const user = await signUp(server);
    const submits = fal.submits.length;
    const minor = await post(user, "/api/img/create-v2", {
      prompt: "Give her a red scarf",
      image_urls: [await uploadUrl(user, "child-2-girl-1860s-crop.jpg")],
    });
    expect(minor.status).toBe(400);
    expect(minor.body).toMatchObject({ messageKey: "input_freeFormMinor" });
    const sexual = await post(user, "/api/img/create-v2", {
      prompt: "make her look sexy in lingerie",
      image_urls: [await uploadUrl(user)],
    });
    expect(sexual.status).toBe(400);
    expect(sexual.body).toMatchObject({ messageKey: "promptSexual" });
    expect(await getBalance(server.services.db, user.id)).toBe(10);
    expect(fal.submits.length).toBe(submits);
  }, 120_000);

  it("refunds a free-form image fal's safety filter blocks", async () => {
    fal.mode = "safety";
    const user = await signUp(server);
    const sub = await post(user, "/api/img/flux-kontext-dev-v2", {
      prompt: "Turn the cat into a tiger",
      image_urls: [await uploadUrl(user, "pet-1-cat.png")],
    });
    expect(sub.status).toBe(200);
    const done = await poll(user, "/api/img/flux-kontext-dev-v2-result", taskIdsOf(sub.body)[0]!);
    expect(done).toMatchObject({ code: 2, failedCode: "providerSafetyBlocked" });
    expect(done.failedReason).toMatch(/safety filter/);
    expect(fal.submits.at(-1)!.model).toBe("fal-ai/nano-banana/edit");
    expect(await getBalance(server.services.db, user.id)).toBe(10);
    fal.mode = "ok";
  }, 60_000);
});

describe("free-form generation through Gemini (fake)", () => {
  let gemini: GeminiFake;
  let server: TestServer;
  beforeAll(async () => {
    gemini = await startGeminiFake({ key: "gemini-test-key" });
    server = await startTestServer({
      env: {
        GEMINI_API_KEY: "gemini-test-key",
        GEMINI_BASE_URL: gemini.url,
        ENGINE_RETRY_BASE_MS: "20",
        ENGINE_BREAKER_THRESHOLD: "1000",
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await gemini?.close();
  });

  it("edits a photo through the create-v2 pair and makes one from text through flux-kontext-dev-v2", async () => {
    const user = await signUp(server);
    const sub = await post(user, "/api/img/create-v2", {
      prompt: "Put the cat on a skateboard",
      image_urls: [await uploadUrl(user, "pet-1-cat.png")],
      num_images: "1",
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    const done = await poll(user, "/api/img/create-v2-result", taskIdsOf(sub.body)[0]!);
    expect(outcomeOf(done)).toBe(1);
    await expectImage(user, imageOf(done));
    let call = gemini.calls.at(-1)!;
    expect(call.model).toBe("gemini-3.1-flash-image-preview");
    const parts = call.body.contents![0]!.parts!;
    expect(parts[0]!.inlineData!.mimeType).toMatch(/^image\//);
    expect(parts.at(-1)!.text).toContain("Put the cat on a skateboard");

    const text = await post(user, "/api/img/flux-kontext-dev-v2", {
      prompt: "A bowl of ramen, studio photo",
      dimension: "1024x768",
      seed: 7,
    });
    const [id] = taskIdsOf(text.body);
    const hook = await (async () => {
      await poll(user, "/api/img/flux-kontext-dev-v2-result", id!);
      return user.json<Body>(`/api/img/result/${id}?type=img`);
    })();
    await expectImage(user, hook.body.imgAfterSrc);
    call = gemini.calls.at(-1)!;
    expect(call.model).toBe("gemini-2.5-flash-image");
    expect(call.body.contents![0]!.parts!.every((p) => !p.inlineData)).toBe(true);
    expect(call.body.generationConfig).toMatchObject({ seed: 7, imageConfig: { aspectRatio: "4:3" } });
    expect(await ledgerSum(server.services.db, user.id)).toBe(6);
  }, 120_000);

  it("reports a partial result when Gemini refuses one of two images", async () => {
    const user = await signUp(server);
    gemini.answers.push({ kind: "image" }, { kind: "finish", finishReason: "IMAGE_SAFETY" });
    const res = await post(user, "/api/img/create", { prompt: "Two owls on a branch", num_images: 2 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ code: 1, data: { succeeded: 1, failed: 1 } });
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
  }, 60_000);
});
