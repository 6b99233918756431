import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance, ledgerSum } from "@/core/credits";
import { startComfyUIFake, type ComfyUIFake } from "./fakes/comfyui-fake";
import { startFalFake, type FalFake } from "./fakes/fal-fake";
import { signUp, startTestServer, submitEffect, type TestServer, waitForTask } from "./harness";
import { expectImage, imageOf, outcomeOf, poll, post, taskIdsOf, uploadUrl } from "./spec-client";

/**
 * ComfyUI on the operator's own GPU, faked locally (HTTP + WebSocket): a configured
 * COMFYUI_URL selects it even with a fal key set (the third party gets nothing). That its
 * default fallback never reaches a third party is tested on the engine choice
 * (src/engine/providers/setup.test.ts); the whole flow with progress in tests/integration/progress.test.ts.
 */

describe("ComfyUI provider through the API", () => {
  let comfy: ComfyUIFake;
  let fal: FalFake;
  let server: TestServer;
  beforeAll(async () => {
    comfy = await startComfyUIFake();
    comfy.stepMs = 20;
    fal = await startFalFake({ key: "fal-test-key" });
    server = await startTestServer({
      env: {
        COMFYUI_URL: comfy.url,
        FAL_KEY: "fal-test-key",
        FAL_BASE_URL: fal.url,
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await comfy?.close();
    await fal?.close();
  });

  it("renders on ComfyUI although a fal key is set, with photos uploaded under random names", async () => {
    const user = await signUp(server);
    const done = await waitForTask(user, await submitEffect(user, "3d-finger"));
    expect(done.body).toMatchObject({ code: 1, failedReason: null });
    const list = await user.json<{ images: Array<Record<string, unknown>> }>("/api/images");
    expect(list.body.images[0]).toMatchObject({ provider: "comfyui" });
    expect(comfy.uploads.at(-1)!.overwrite).toBe(false);
    expect(comfy.uploads.at(-1)!.name).toMatch(/[0-9a-f]{16,}/);
    expect(fal.submits).toHaveLength(0);
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
  });
});

/** The nodes of one accepted prompt of a class, from the fake's record. */
const nodesOf = (
  prompt: Record<string, { class_type: string; inputs: Record<string, unknown> }>,
  cls: string,
) => Object.values(prompt).filter((n) => n.class_type === cls);

describe("free-form generation through ComfyUI (the generic generate call)", () => {
  let comfy: ComfyUIFake;
  let server: TestServer;
  beforeAll(async () => {
    comfy = await startComfyUIFake();
    server = await startTestServer({
      env: { COMFYUI_URL: comfy.url, ENGINE_RETRY_BASE_MS: "20", ENGINE_BREAKER_THRESHOLD: "1000" },
    });
  });
  afterAll(async () => {
    await server?.close();
    await comfy?.close();
  });

  it("makes images from text alone on the Qwen-Image workflow: dimension, seed and num_images honoured", async () => {
    comfy.mode = "ok";
    const user = await signUp(server);
    const before = comfy.prompts.length;
    const sub = await post(user, "/api/img/create-v2", {
      prompt: "A lighthouse on a cliff at dawn, watercolour",
      dimension: "1920x1080",
      image_urls: [],
      num_images: "2",
      batchSize: 1,
      seed: 42,
    });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    const ids = taskIdsOf(sub.body);
    expect(ids).toHaveLength(2);
    for (const id of ids) {
      const done = await poll(user, "/api/img/create-v2-result", id);
      expect(outcomeOf(done), JSON.stringify(done)).toBe(1);
      await expectImage(user, imageOf(done));
    }
    const jobs = comfy.prompts.slice(before).map((p) => p.prompt);
    expect(jobs).toHaveLength(2);
    for (const job of jobs) {
      expect(nodesOf(job, "LoadImage")).toEqual([]);
      expect(nodesOf(job, "UNETLoader")[0]!.inputs.unet_name).toBe("qwen_image_fp8_e4m3fn.safetensors");
      const texts = nodesOf(job, "CLIPTextEncode").map((n) => String(n.inputs.text));
      expect(texts.some((t) => t.includes("A lighthouse on a cliff at dawn, watercolour"))).toBe(true);
      const { width, height } = nodesOf(job, "EmptySD3LatentImage")[0]!.inputs as {
        width: number;
        height: number;
      };
      expect(Math.abs(width / height - 16 / 9)).toBeLessThan(0.03);
    }
    // Each image is its own job with its own seed: the request's, then +1.
    expect(jobs.map((j) => nodesOf(j, "KSampler")[0]!.inputs.seed).sort()).toEqual([42, 43]);
    const list = await user.json<{ images: Array<Record<string, unknown>> }>("/api/images");
    expect(list.body.images[0]).toMatchObject({ provider: "comfyui", model: "qwen-image-lightning" });
    expect(await ledgerSum(server.services.db, user.id)).toBe(6);
  }, 120_000);

  it("edits one photo, and two photos, from an instruction on the Qwen-Image-Edit workflows", async () => {
    comfy.mode = "ok";
    const user = await signUp(server);
    const before = comfy.prompts.length;
    const one = await post(user, "/api/img/create", {
      prompt: "Put a tiny party hat on the cat",
      dimension: "auto",
      image_urls: [await uploadUrl(user, "pet-1-cat.png")],
      num_images: 1,
    });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body).toMatchObject({ code: 1, data: { succeeded: 1, failed: 0 } });
    await expectImage(user, one.body.data?.url);

    const two = await post(user, "/api/img/flux-kontext-v2/submit", {
      prompt: "Put the raccoon into the meadow",
      image_urls: [await uploadUrl(user, "landscape-1-meadow-cc0.jpg")],
      image_path: await uploadUrl(user, "pet-2-raccoon.jpg"),
      dimension: "4:3",
      seed: 7,
    });
    expect(two.status, JSON.stringify(two.body)).toBe(200);
    const done = await poll(user, "/api/img/flux-kontext-v2/taskResult", taskIdsOf(two.body)[0]!);
    expect(outcomeOf(done), JSON.stringify(done)).toBe(1);
    await expectImage(user, imageOf(done));

    const [first, second] = comfy.prompts.slice(before).map((p) => p.prompt);
    expect(nodesOf(first!, "LoadImage")).toHaveLength(1);
    expect(nodesOf(second!, "LoadImage")).toHaveLength(2);
    const instruction = (job: typeof first) =>
      nodesOf(job!, "TextEncodeQwenImageEditPlus")
        .map((n) => String(n.inputs.prompt))
        .find(Boolean)!;
    expect(instruction(first)).toContain("Put a tiny party hat on the cat");
    expect(instruction(second)).toContain("Put the raccoon into the meadow");
    expect(instruction(second)).toMatch(/Never produce nudity/);
    // Both photos went to the edit encoder, in the caller's order (image_urls, then image_path).
    const enc = nodesOf(second!, "TextEncodeQwenImageEditPlus")[0]!.inputs;
    expect(enc.image1).toBeDefined();
    expect(enc.image2).toBeDefined();
    expect(nodesOf(second!, "KSampler")[0]!.inputs.seed).toBe(7);
    const { width, height } = nodesOf(second!, "EmptySD3LatentImage")[0]!.inputs as {
      width: number;
      height: number;
    };
    expect(Math.abs(width / height - 4 / 3)).toBeLessThan(0.03);
    const list = await user.json<{ images: Array<Record<string, unknown>> }>("/api/images");
    expect(list.body.images[0]).toMatchObject({
      provider: "comfyui",
      model: "qwen-image-edit-2509-lightning",
    });
    expect(await ledgerSum(server.services.db, user.id)).toBe(6);
  }, 120_000);

  it("refuses more photos than its workflows take before charging anything", async () => {
    comfy.mode = "ok";
    const user = await signUp(server);
    // A subscriber (a free user may send only two photos).
    const start = await user.json<{ checkoutId: string }>("/api/checkout", { productId: "pro" });
    expect((await user.json(`/api/checkout/test/${start.body.checkoutId}/complete`, {})).status).toBe(200);
    const balance = await getBalance(server.services.db, user.id);
    const before = comfy.prompts.length;
    const photos = ["pet-1-cat.png", "pet-2-raccoon.jpg", "landscape-1-meadow-cc0.jpg", "object-coffee.png"];
    const res = await post(user, "/api/img/create", {
      prompt: "Put all of them into one picture",
      dimension: "auto",
      image_urls: await Promise.all(photos.map((p) => uploadUrl(user, p))),
      num_images: 1,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/at most 3 photos in one edit/);
    expect(await getBalance(server.services.db, user.id)).toBe(balance);
    expect(comfy.prompts.length).toBe(before);
  }, 120_000);

  it("refunds each image that fails on its own and reports the partial result", async () => {
    comfy.mode = "ok";
    const user = await signUp(server);
    // The first job of the two is refused by the server; the other renders.
    comfy.failures.push({ path: "/prompt", method: "POST", status: 400 });
    const res = await post(user, "/api/img/create", { prompt: "Two owls on a branch", num_images: 2 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ code: 1, data: { succeeded: 1, failed: 1 } });
    const failed = res.body.data!.results!.find((r) => r.code === 2)!;
    expect(failed.failedReason).toMatch(/refunded/);
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
    expect(await getBalance(server.services.db, user.id)).toBe(8);
  }, 120_000);
});
