import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { task } from "@/core/schema";
import { getBalance, ledgerSum } from "@/core/credits";
import {
  fixture,
  signUp,
  startTestServer,
  submit,
  waitForTask,
  type TestServer,
} from "../integration/harness";

/**
 * Fault test: `npm run worker` processes on BullMQ, one killed with SIGKILL in the middle of
 * a job. Another worker takes the task over once the dead worker's lock expires; the task
 * succeeds once and the credits balance exactly.
 */
const ROOT = path.resolve(__dirname, "../..");
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** A worker as a real OS process; resolves once it reports ready. */
function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const child = fork(path.join(ROOT, "src/worker/main.ts"), [], {
    cwd: ROOT,
    execArgv: ["--import", "tsx"],
    env: { ...process.env, LOG_LEVEL: "silent", ...env },
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`worker exited with ${code}`)));
  });
}

async function waitForState(server: TestServer, taskId: string, state: string) {
  for (let i = 0; i < 300; i++) {
    const [row] = await server.services.db.select().from(task).where(eq(task.id, taskId));
    if (row?.state === state) return row;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`task ${taskId} never reached ${state}`);
}

describe("a worker killed with SIGKILL mid-job", () => {
  const cleanup: Array<() => unknown> = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn();
  });

  it("another worker takes the task over; it succeeds once and credits balance", async () => {
    const queue = `photofx-kill-${process.pid}-${Date.now()}`;
    const web = await startTestServer({ role: "web", env: { REDIS_URL, QUEUE_NAME: queue } });
    cleanup.push(() => web.close());
    const shared = {
      DATABASE_URL: web.databaseUrl!,
      DATA_DIR: web.dataDir,
      REDIS_URL,
      QUEUE_NAME: queue,
      AUTH_SECRET: "test-secret-test-secret-test-secret-0123",
      QUEUE_LOCK_SECONDS: "2",
    };
    // This worker would hold the render for a minute: it dies long before.
    const doomed = await startWorkerProcess({ ...shared, ENGINE_DEBUG_DELAY_MS: "60000" });
    cleanup.push(() => doomed.kill("SIGKILL"));

    const user = await signUp(web);
    const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-inverted-face-filter",
    });
    const taskId = res.body.data!.taskIds[0]!;
    await waitForState(web, taskId, "running");
    doomed.kill("SIGKILL");

    const rescuer = await startWorkerProcess(shared);
    cleanup.push(() => rescuer.kill("SIGTERM"));
    const done = await waitForTask(user, taskId, 30_000);
    expect(done.body.code).toBe(1);
    const [row] = await web.services.db.select().from(task).where(eq(task.id, taskId));
    expect(row!.attempts).toBe(2);
    expect(await getBalance(web.services.db, user.id)).toBe(8);
    expect(await ledgerSum(web.services.db, user.id)).toBe(8);
  }, 60_000);

  it("a worker stopped with SIGTERM finishes its running job before it exits", async () => {
    const queue = `photofx-term-${process.pid}-${Date.now()}`;
    const web = await startTestServer({ role: "web", env: { REDIS_URL, QUEUE_NAME: queue } });
    cleanup.push(() => web.close());
    const worker = await startWorkerProcess({
      DATABASE_URL: web.databaseUrl!,
      DATA_DIR: web.dataDir,
      REDIS_URL,
      QUEUE_NAME: queue,
      AUTH_SECRET: "test-secret-test-secret-test-secret-0123",
      ENGINE_DEBUG_DELAY_MS: "2000",
    });
    cleanup.push(() => worker.kill("SIGKILL"));
    const user = await signUp(web);
    const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    const res = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-inverted-face-filter",
    });
    const taskId = res.body.data!.taskIds[0]!;
    await waitForState(web, taskId, "running");
    const exited = new Promise<number | null>((resolve) => worker.once("exit", resolve));
    worker.kill("SIGTERM");
    expect(await exited).toBe(0);
    // It exited only after the job: the task is already done, with no other worker around.
    const [row] = await web.services.db.select().from(task).where(eq(task.id, taskId));
    expect(row!.state).toBe("succeeded");
    expect(await getBalance(web.services.db, user.id)).toBe(8);
  }, 60_000);
});
