import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startComfyUIFake, type ComfyUIFake } from "./fakes/comfyui-fake";
import { signUp, startTestServer, submitEffect, type TestServer, type TestUser } from "./harness";

/**
 * Progress users can see: a backend that reports its steps (ComfyUI's sampler) feeds the
 * task answer while it renders, and once the effect has a few renders behind it the
 * answer carries an estimate of the time left. In scale-out mode the progress travels from
 * the worker process through Redis to the web process that answers.
 */

interface Answer {
  code: number;
  progress?: { value: number; max: number; queuePosition?: number } | null;
  etaSeconds?: number | null;
}

/** Polls taskResult every 150 ms until the task ends; returns every answer seen. */
async function watch(user: TestUser, taskId: string, timeoutMs = 30_000): Promise<Answer[]> {
  const seen: Answer[] = [];
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const res = await user.json<Answer>("/api/img/nano-banana/taskResult", { taskId });
    seen.push(res.body);
    if (res.body.code !== 0) return seen;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error("task did not finish");
}

describe("render progress in the task answer", () => {
  let comfy: ComfyUIFake;
  let server: TestServer;
  beforeAll(async () => {
    comfy = await startComfyUIFake();
    comfy.stepMs = 300;
    server = await startTestServer({ env: { COMFYUI_URL: comfy.url, ENGINE_BREAKER_THRESHOLD: "1000" } });
  });
  afterAll(async () => {
    await server?.close();
    await comfy?.close();
  });

  it("shows the backend's steps while it renders, then an estimate once the effect has history", async () => {
    const user = await signUp(server);
    const first = await watch(user, await submitEffect(user, "pixel-illustration"));
    expect(first.at(-1)!.code).toBe(1);
    const steps = first.filter((a) => a.code === 0 && a.progress && a.progress.value > 0);
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.at(-1)!.progress!.max).toBeGreaterThanOrEqual(steps.at(-1)!.progress!.value);
    // Finished answers carry no progress.
    expect(first.at(-1)!.progress ?? null).toBeNull();

    // Three renders of the effect make a history; the next one gets a time-left estimate.
    for (let i = 0; i < 2; i++)
      expect((await watch(user, await submitEffect(user, "pixel-illustration"))).at(-1)!.code).toBe(1);
    const later = await watch(user, await submitEffect(user, "pixel-illustration"));
    expect(later.at(-1)!.code).toBe(1);
    const estimates = later.filter((a) => a.code === 0 && typeof a.etaSeconds === "number");
    expect(estimates.length).toBeGreaterThan(0);
    expect(estimates.every((a) => a.etaSeconds! >= 1 && a.etaSeconds! < 60)).toBe(true);
  }, 120_000);
});
