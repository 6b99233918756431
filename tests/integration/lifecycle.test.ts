import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { task } from "@/core/schema";
import { getBalance, ledgerSum } from "@/core/credits";
import { TaskReasons } from "@/core/task-lifecycle";
import { countLiveUploads } from "@/core/uploads";
import type { RenderRequest, RenderResult } from "@/core/ports/renderer";
import {
  SCALE_OUT,
  asUser,
  fixture,
  signUp,
  startTestServer,
  submit,
  waitForTask,
  type TestServer,
} from "./harness";

/** A renderer that never finishes until aborted: a stuck provider or a slow engine. */
const hangingRenderer = {
  id: "hanging",
  supports: () => true,
  render(_req: RenderRequest, signal?: AbortSignal): Promise<RenderResult> {
    return new Promise((_resolve, reject) => {
      signal?.addEventListener("abort", () => reject(new Error("aborted")));
    });
  },
};

/**
 * First life of a server: a submit whose render hangs, then the process "dies" (no grace)
 * with the task running. Returns what the second life needs to reopen the same state.
 */
async function submitThenCrash(opts: { usedLastAttempt?: boolean } = {}) {
  const first = await startTestServer({ renderer: hangingRenderer });
  const user = await signUp(first);
  const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
  const res = await submit(user, {
    image_urls: [up.body.url],
    imageType: "nano-banana-lora-inverted-face-filter",
  });
  const taskId = res.body.data!.taskIds[0]!;
  for (let i = 0; i < 100; i++) {
    const [row] = await first.services.db.select().from(task).where(eq(task.id, taskId));
    if (row?.state === "running") break;
    await new Promise((r) => setTimeout(r, 20));
  }
  if (opts.usedLastAttempt)
    await first.services.db.update(task).set({ attempts: 2 }).where(eq(task.id, taskId));
  const reuse = { databaseUrl: first.databaseUrl, dataDir: first.dataDir };
  await first.stop({ crash: true });
  return { user, taskId, reuse };
}

describe("task lifecycle: timeout and crash recovery (Postgres)", () => {
  it("a job delivered twice at once settles its task once: one image, one charge", async () => {
    const server = await startTestServer({ noWorker: true });
    servers.push(server);
    const user = await signUp(server);
    const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-inverted-face-filter",
    });
    const taskId = res.body.data!.taskIds[0]!;
    const { runTask } = await import("@/core/task-lifecycle");
    const { image } = await import("@/core/schema");
    // Two deliveries at once, one of them flagged as a redelivery (it may take over).
    await Promise.all([
      runTask(server.renderer.taskDeps, taskId),
      runTask(server.renderer.taskDeps, taskId, { redelivered: true }),
    ]);
    const images = await server.services.db.select().from(image).where(eq(image.taskId, taskId));
    expect(images).toHaveLength(1);
    const [row] = await server.services.db.select().from(task).where(eq(task.id, taskId));
    expect(row!.state).toBe("succeeded");
    expect(await getBalance(server.services.db, user.id)).toBe(8);
    expect(await ledgerSum(server.services.db, user.id)).toBe(8);
  });

  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers.reverse()) await s.close().catch(() => {});
  });

  it("fails a task that outlives its window, with the timeout reason and a refund", async () => {
    const server = await startTestServer({ renderer: hangingRenderer, env: { TASK_TIMEOUT_SECONDS: "1" } });
    servers.push(server);
    const user = await signUp(server);
    const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-inverted-face-filter",
    });
    const taskId = res.body.data!.taskIds[0]!;
    expect(await getBalance(server.services.db, user.id)).toBe(8);
    await new Promise((r) => setTimeout(r, 1_200));
    await server.services.sweep();
    const done = await waitForTask(user, taskId, 2_000);
    expect(done.body).toMatchObject({
      code: 2,
      failedReason: TaskReasons.timeout.text,
      failedCode: "timeout",
    });
    expect(await getBalance(server.services.db, user.id)).toBe(10);
    expect(await ledgerSum(server.services.db, user.id)).toBe(10);
    await expect.poll(() => countLiveUploads(server.services.db, user.id)).toBe(0);
    // A second sweep changes nothing: refunded once.
    await server.services.sweep();
    expect(await ledgerSum(server.services.db, user.id)).toBe(10);
  });

  // One machine's start-up recovery; scale-out has redelivery instead (tests/scaleout/kill-worker.test.ts).
  it.skipIf(SCALE_OUT)("a task cut off by a restart runs again and succeeds", async () => {
    const { user, taskId, reuse } = await submitThenCrash();

    // Second life on the same database and storage, with the real engine.
    const second = await startTestServer({ reuse });
    servers.push(second);
    const again = asUser(second, user.cookie, user.email, user.id);
    const done = await waitForTask(again, taskId);
    expect(done.body.code).toBe(1);
    const [row] = await second.services.db.select().from(task).where(eq(task.id, taskId));
    expect(row!.attempts).toBe(2);
    expect(await getBalance(second.services.db, user.id)).toBe(8);
    expect(await ledgerSum(second.services.db, user.id)).toBe(8);
  });

  // One machine's start-up recovery; scale-out has redelivery instead (tests/scaleout/kill-worker.test.ts).
  it.skipIf(SCALE_OUT)("a task cut off with no attempt left fails with its credits refunded", async () => {
    const { user, taskId, reuse } = await submitThenCrash({ usedLastAttempt: true });

    const second = await startTestServer({ reuse });
    servers.push(second);
    const again = asUser(second, user.cookie, user.email, user.id);
    const done = await waitForTask(again, taskId);
    expect(done.body).toMatchObject({
      code: 2,
      failedReason: TaskReasons.interrupted.text,
      failedCode: "interrupted",
    });
    expect(await getBalance(second.services.db, user.id)).toBe(10);
    expect(await ledgerSum(second.services.db, user.id)).toBe(10);
    await expect.poll(() => countLiveUploads(second.services.db, user.id)).toBe(0);
  });
});
