import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance, ledgerSum } from "@/core/credits";
import { startReplicateFake, type ReplicateFake } from "./fakes/replicate-fake";
import { signUp, startTestServer, submitEffect, type TestServer, waitForTask } from "./harness";
import { expectImage, imageOf, outcomeOf, poll, post, taskIdsOf, uploadUrl } from "./spec-client";

/**
 * The whole flow through Replicate's predictions API, faked locally: create with
 * `Prefer: wait`, poll, fetch the output at once; webhook mode through the real route
 * POST /api/providers/replicate/webhook, where a forged delivery is refused with 401 and the
 * task still finishes by polling; a failed prediction is refunded.
 */

const TOKEN = "r8_test_token";

describe("Replicate provider through the API", () => {
  let replicate: ReplicateFake;
  let server: TestServer;
  beforeAll(async () => {
    replicate = await startReplicateFake({ token: TOKEN });
    server = await startTestServer({
      env: {
        ENGINE: "replicate",
        REPLICATE_API_TOKEN: TOKEN,
        REPLICATE_BASE_URL: replicate.url,
        REPLICATE_WEBHOOK_URL: "https://photos.example/api/providers/replicate/webhook",
        REPLICATE_WEBHOOK_SECRET: replicate.webhookSecret,
        ENGINE_RETRY_BASE_MS: "20",
        ENGINE_BREAKER_THRESHOLD: "1000",
      },
    });
    // Deliveries go to this server's real route (the public URL above stands for it).
    replicate.webhookTarget = `${server.url}/api/providers/replicate/webhook`;
  });
  afterAll(async () => {
    await server?.close();
    await replicate?.close();
  });

  it("creates a prediction with the effect's prompt, finishes from a signed webhook, stores the image, charges once", async () => {
    const user = await signUp(server);
    const done = await waitForTask(user, await submitEffect(user, "3d-finger"));
    expect(done.body).toMatchObject({ code: 1, failedReason: null });
    const created = replicate.created.at(-1)!;
    expect(String(created.input.prompt)).toContain("1/7 scale collectible figure");
    expect(created.webhook).toBe("https://photos.example/api/providers/replicate/webhook");
    expect(replicate.requests.some((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    // The signed delivery reached the generic route and was accepted.
    expect(replicate.webhookAnswers).toContain(200);
    const list = await user.json<{ images: Array<Record<string, unknown>> }>("/api/images");
    expect(list.body.images[0]).toMatchObject({ provider: "replicate", model: "qwen/qwen-image-edit-plus" });
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
  });

  it("refuses a forged webhook with 401; the task still finishes by polling", async () => {
    const user = await signUp(server);
    const answers = replicate.webhookAnswers.length;
    replicate.forgeWebhooks = true;
    try {
      const done = await waitForTask(user, await submitEffect(user, "3d-finger"), 60_000);
      expect(done.body.code).toBe(1);
    } finally {
      replicate.forgeWebhooks = false;
    }
    expect(replicate.webhookAnswers.slice(answers)).toContain(401);
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
  }, 90_000);

  it("fails a failed prediction with a refund", async () => {
    const user = await signUp(server);
    replicate.mode = "fail";
    try {
      const done = await waitForTask(user, await submitEffect(user, "3d-finger"));
      expect(done.body.code).toBe(2);
      expect(done.body.failedReason).toMatch(/refunded/);
    } finally {
      replicate.mode = "ok";
    }
    expect(await ledgerSum(server.services.db, user.id)).toBe(10);
  });
});

describe("free-form generation through Replicate (the generic generate call)", () => {
  let replicate: ReplicateFake;
  let server: TestServer;
  beforeAll(async () => {
    replicate = await startReplicateFake({ token: TOKEN });
    server = await startTestServer({
      env: {
        ENGINE: "replicate",
        REPLICATE_API_TOKEN: TOKEN,
        REPLICATE_BASE_URL: replicate.url,
        ENGINE_RETRY_BASE_MS: "20",
        ENGINE_BREAKER_THRESHOLD: "1000",
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await replicate?.close();
  });

  it("edits the caller's photo from an instruction on the edit model", async () => {
    const user = await signUp(server);
    const sub = await post(user, "/api/img/flux-kontext-dev-v2", {
      prompt: "Turn the meadow into a snowy field",
      image_urls: [await uploadUrl(user, "landscape-1-meadow-cc0.jpg")],
      seed: 99,
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    const done = await poll(user, "/api/img/flux-kontext-dev-v2-result", taskIdsOf(sub.body)[0]!);
    expect(outcomeOf(done), JSON.stringify(done)).toBe(1);
    await expectImage(user, imageOf(done));
    const created = replicate.created.at(-1)!;
    expect(created.model).toBe("qwen/qwen-image-edit-plus");
    expect(String(created.input.prompt)).toContain("Turn the meadow into a snowy field");
    expect(created.input).toMatchObject({ seed: 99, aspect_ratio: "match_input_image" });
    expect(created.input.image).toHaveLength(1);
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
  }, 120_000);

  it("makes images from text alone on the text model; a failed image is refunded on its own", async () => {
    const user = await signUp(server);
    const before = replicate.created.length;
    // The first create is refused; the second image is made.
    replicate.createFailures = [{ status: 422 }];
    const res = await post(user, "/api/img/create", {
      prompt: "A paper boat on a puddle, macro photo",
      dimension: "3:2",
      num_images: 1,
      batchSize: 2,
      seed: 500,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ code: 1, data: { succeeded: 1, failed: 1 } });
    await expectImage(user, res.body.data?.url);
    expect(res.body.data!.results!.find((r) => r.code === 2)!.failedReason).toMatch(/refunded/);
    const created = replicate.created.slice(before);
    expect(created).toHaveLength(1);
    expect(created[0]!.model).toBe("qwen/qwen-image");
    expect(String(created[0]!.input.prompt)).toContain("A paper boat on a puddle, macro photo");
    expect(created[0]!.input).toMatchObject({ aspect_ratio: "3:2" });
    expect(created[0]!.input).not.toHaveProperty("image");
    expect([500, 501]).toContain(created[0]!.input.seed);
    const list = await user.json<{ images: Array<Record<string, unknown>> }>("/api/images");
    expect(list.body.images[0]).toMatchObject({ provider: "replicate", model: "qwen/qwen-image" });
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
    expect(await getBalance(server.services.db, user.id)).toBe(8);
  }, 120_000);
});
