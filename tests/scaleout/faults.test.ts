import { spawn } from "node:child_process";
import net from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { task } from "@/core/schema";
import { getBalance, ledgerSum } from "@/core/credits";
import { fixture, signUp, startTestServer, submit, waitForTask } from "../integration/harness";

/**
 * Fault tests of scale-out mode: a Redis restart (without persistence) while tasks are
 * queued and running (a worker killed mid-job: kill-worker.test.ts). Every task must
 * end succeeded, or failed with its credits refunded, and the ledger must balance.
 */

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

describe("faults in scale-out mode", () => {
  const cleanup: Array<() => Promise<unknown> | unknown> = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn();
  });

  it("a Redis restart during a run loses no task", async () => {
    const port = await freePort();
    const startRedis = () => {
      const p = spawn(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        {
          stdio: "ignore",
        },
      );
      return p;
    };
    let redis = startRedis();
    cleanup.push(() => redis.kill("SIGKILL"));
    await new Promise((r) => setTimeout(r, 300));
    const env = {
      REDIS_URL: `redis://127.0.0.1:${port}`,
      QUEUE_NAME: "photofx-restart",
      QUEUE_LOCK_SECONDS: "2",
    };
    const web = await startTestServer({ role: "web", env });
    cleanup.push(() => web.close());
    const worker = await startTestServer({
      role: "worker",
      env: { ...env, ENGINE_THREADS: "1" },
      reuse: { databaseUrl: web.databaseUrl, dataDir: web.dataDir },
    });
    cleanup.push(() => worker.stop());

    const user = await signUp(web);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const up = await user.upload(fixture("object-coffee.png"), `${i}.png`, "image/png");
      const res = await submit(user, {
        image_urls: [up.body.url],
        imageType: "nano-banana-lora-pixel-illustration",
      });
      ids.push(res.body.data!.taskIds[0]!);
    }
    // Restart Redis at once: waiting jobs vanish with it (no persistence).
    redis.kill("SIGKILL");
    await new Promise((r) => setTimeout(r, 500));
    redis = startRedis();
    await new Promise((r) => setTimeout(r, 1_000));

    // The sweep (every 15 s in production) enqueues tasks whose jobs were lost.
    const deadline = Date.now() + 40_000;
    for (;;) {
      const rows = await web.services.db
        .select({ state: task.state })
        .from(task)
        .where(eq(task.userId, user.id));
      if (rows.every((r) => r.state === "succeeded" || r.state === "failed")) break;
      if (Date.now() > deadline) throw new Error(`tasks still unfinished: ${JSON.stringify(rows)}`);
      await worker.services.sweep().catch(() => {});
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const rows = await web.services.db.select().from(task).where(eq(task.userId, user.id));
    expect(rows).toHaveLength(5);
    const failed = rows.filter((r) => r.state === "failed").length;
    expect(await ledgerSum(web.services.db, user.id)).toBe(10 - 2 * (5 - failed));
    expect(await getBalance(web.services.db, user.id)).toBe(10 - 2 * (5 - failed));
    expect(rows.filter((r) => r.state === "succeeded").length).toBeGreaterThan(0);
    for (const id of ids) expect((await waitForTask(user, id)).body.code).not.toBe(0);
  }, 90_000);
});
