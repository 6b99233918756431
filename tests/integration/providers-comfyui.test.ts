import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerSum } from "@/core/credits";
import { startComfyUIFake, type ComfyUIFake } from "./fakes/comfyui-fake";
import { startFalFake, type FalFake } from "./fakes/fal-fake";
import { signUp, startTestServer, submitEffect, type TestServer, waitForTask } from "./harness";

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
