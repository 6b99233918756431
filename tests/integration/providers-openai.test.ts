import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance, ledgerSum } from "@/core/credits";
import { startOpenAIFake, type OpenAIFake } from "./fakes/openai-fake";
import { signUp, startTestServer, submitEffect, type TestServer, waitForTask } from "./harness";
import { expectImage, imageOf, outcomeOf, poll, post, taskIdsOf, uploadUrl } from "./spec-client";

/**
 * The whole flow through OpenAI's Images API, faked locally (multipart /v1/images/edits):
 * chosen only when ENGINE names it; success stores the image and charges once; a
 * moderation refusal fails the task with a refund and a translated reason. A key alone
 * sends nothing anywhere.
 */

const KEY = "sk-test-openai";

describe("OpenAI provider through the API", () => {
  let openai: OpenAIFake;
  let server: TestServer;
  let strayKey: TestServer;
  beforeAll(async () => {
    openai = await startOpenAIFake({ apiKey: KEY });
    const env = { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: openai.url, ENGINE_RETRY_BASE_MS: "20" };
    server = await startTestServer({ env: { ...env, ENGINE: "openai", ENGINE_BREAKER_THRESHOLD: "1000" } });
    strayKey = await startTestServer({ env });
  });
  afterAll(async () => {
    await server?.close();
    await strayKey?.close();
    await openai?.close();
  });

  it("renders through the edits call, stores the image and charges once", async () => {
    const user = await signUp(server);
    const done = await waitForTask(user, await submitEffect(user, "3d-finger"));
    expect(done.body).toMatchObject({ code: 1, failedReason: null });
    const call = openai.calls.at(-1)!;
    expect(call.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(call.fields.prompt).toContain("1/7 scale collectible figure");
    expect(call.images.length).toBe(1);
    const list = await user.json<{ images: Array<Record<string, unknown>> }>("/api/images");
    expect(list.body.images[0]).toMatchObject({ provider: "openai", model: "gpt-image-1" });
    expect((await user.json("/api/credits")).body).toEqual({ balance: 8 });
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
  });

  it("fails a moderation refusal with a refund and a translated reason, without retrying it", async () => {
    const user = await signUp(server);
    const before = openai.calls.length;
    openai.mode = "moderation";
    try {
      const done = await waitForTask(user, await submitEffect(user, "3d-finger"));
      expect(done.body).toMatchObject({ code: 2, failedCode: "providerSafetyBlocked" });
      expect(openai.calls.length - before).toBe(1);
    } finally {
      openai.mode = "ok";
    }
    expect(await ledgerSum(server.services.db, user.id)).toBe(10);
  });

  it("sends nothing to OpenAI when only its key is set: the local engine renders", async () => {
    const user = await signUp(strayKey);
    const before = openai.calls.length;
    const done = await waitForTask(user, await submitEffect(user, "pixel-illustration"), 60_000);
    expect(done.body.code).toBe(1);
    expect(openai.calls.length).toBe(before);
    const list = await user.json<{ images: Array<Record<string, unknown>> }>("/api/images");
    expect(list.body.images[0]).toMatchObject({ provider: "local" });
  });
});

describe("free-form generation through OpenAI (the generic generate call)", () => {
  let openai: OpenAIFake;
  let server: TestServer;
  beforeAll(async () => {
    openai = await startOpenAIFake({ apiKey: KEY });
    server = await startTestServer({
      env: {
        ENGINE: "openai",
        OPENAI_API_KEY: KEY,
        OPENAI_BASE_URL: openai.url,
        ENGINE_RETRY_BASE_MS: "20",
        ENGINE_BREAKER_THRESHOLD: "1000",
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await openai?.close();
  });

  it("edits the caller's photos from an instruction through the edits call", async () => {
    const user = await signUp(server);
    const sub = await post(user, "/api/img/create-v2", {
      prompt: "Give the cat a tiny wizard hat",
      image_urls: [await uploadUrl(user, "pet-1-cat.png")],
      image_path: await uploadUrl(user, "object-coffee.png"),
      dimension: "16:9",
      num_images: "1",
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    const [taskId] = taskIdsOf(sub.body);
    const done = await poll(user, "/api/img/create-v2-result", taskId!);
    expect(outcomeOf(done), JSON.stringify(done)).toBe(1);
    await expectImage(user, imageOf(done));
    const call = openai.calls.at(-1)!;
    expect(call.endpoint).toBe("edits");
    expect(call.fields.prompt).toContain("Give the cat a tiny wizard hat");
    expect(call.fields.size).toBe("1536x1024");
    expect(call.images.map((i) => i.field)).toEqual(["image[]", "image[]"]);
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
  }, 120_000);

  it("makes images from text alone through the generations call; a failed image is refunded on its own", async () => {
    const user = await signUp(server);
    const before = openai.calls.length;
    // The first of the two calls is refused; the other succeeds.
    openai.failures = [{ status: 400 }];
    const res = await post(user, "/api/img/create", {
      prompt: "A bowl of ramen, studio photo",
      dimension: "1024x1536",
      image_urls: [],
      num_images: 2,
      batchSize: 1,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ code: 1, data: { succeeded: 1, failed: 1 } });
    await expectImage(user, res.body.data?.url);
    expect(res.body.data!.results!.find((r) => r.code === 2)!.failedReason).toMatch(/refunded/);
    const calls = openai.calls.slice(before);
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call.endpoint).toBe("generations");
      expect(call.fields.prompt).toContain("A bowl of ramen, studio photo");
      expect(call.fields.size).toBe("1024x1536");
      expect(call.images).toEqual([]);
    }
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
    expect(await getBalance(server.services.db, user.id)).toBe(8);
  }, 120_000);
});
