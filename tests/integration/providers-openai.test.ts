import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerSum } from "@/core/credits";
import { startOpenAIFake, type OpenAIFake } from "./fakes/openai-fake";
import { signUp, startTestServer, submitEffect, type TestServer, waitForTask } from "./harness";

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
