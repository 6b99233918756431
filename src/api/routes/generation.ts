import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { AppError } from "@/core/errors";
import { submitGeneration } from "@/core/submit";
import { getTaskResult, toAnswer } from "@/core/tasks";
import { clientIp, requireUser, type ApiEnv } from "../context";

const taskIdSchema = z.object({ taskId: z.string().min(1).max(64) });

async function readJson(c: { req: { json(): Promise<unknown> } }): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new AppError("BAD_REQUEST", "The request body must be JSON.");
  }
}

/**
 * The spec's generation calls: submit (v1 and v2 routes), taskResult polling, and a
 * server-sent-events stream that pushes the same answer the moment it changes.
 */
export function generationRoutes() {
  const app = new Hono<ApiEnv>();

  for (const [path, route] of [
    ["/nano-banana/submit", "v1"],
    ["/nano-banana-v2/submit", "v2"],
  ] as const) {
    app.post(path, async (c) => {
      const user = requireUser(c);
      const s = c.get("services");
      await s.rateLimits.consume("submit", user.id, clientIp(c));
      const { taskIds } = await submitGeneration(
        {
          db: s.database.db,
          gate: s.gate,
          storage: s.storage,
          inputRules: s.inputRules,
          allowedOrigins: s.allowedOrigins,
          taskTimeoutSeconds: s.env.TASK_TIMEOUT_SECONDS,
          onCreated: async (tasks) => {
            for (const t of tasks) {
              await s.events.publish({
                taskId: t.id,
                userId: t.userId,
                state: "queued",
                imageUrl: null,
                failedReason: null,
                failedCode: null,
              });
              await s.queue.enqueue(t.id);
              s.metrics.creditsCharged(t.credits);
            }
          },
        },
        {
          userId: user.id,
          route,
          payload: await readJson(c),
          idempotencyKey: c.req.header("idempotency-key"),
          ip: clientIp(c),
          hostname: new URL(c.req.url).hostname,
        },
      );
      return c.json({ message: "Task submitted", data: { taskIds } });
    });
  }

  for (const prefix of ["/nano-banana", "/nano-banana-v2"]) {
    app.post(`${prefix}/taskResult`, async (c) => {
      const user = requireUser(c);
      const parsed = taskIdSchema.safeParse(await readJson(c));
      if (!parsed.success) throw new AppError("VALIDATION", "taskId is required");
      const s = c.get("services");
      const answer = await getTaskResult(
        { db: s.database.db, cache: s.taskCache },
        user.id,
        parsed.data.taskId,
      );
      if (!answer) return c.json({ message: "Task not found" }, 404);
      return c.json(answer);
    });

    app.get(`${prefix}/taskEvents`, async (c) => {
      const user = requireUser(c);
      const parsed = taskIdSchema.safeParse({ taskId: c.req.query("taskId") });
      if (!parsed.success) throw new AppError("VALIDATION", "taskId is required");
      const { taskId } = parsed.data;
      const s = c.get("services");
      const first = await getTaskResult({ db: s.database.db, cache: s.taskCache }, user.id, taskId);
      if (!first) return c.json({ message: "Task not found" }, 404);
      return streamSSE(c, async (stream) => {
        let done = false;
        let wake: (() => void) | undefined;
        const queue: string[] = [];
        const push = (data: string) => {
          queue.push(data);
          wake?.();
        };
        const unsubscribe = s.events.subscribe(taskId, (e) => {
          if (e.userId === user.id) push(JSON.stringify(toAnswer(e)));
        });
        stream.onAbort(() => {
          done = true;
          wake?.();
        });
        try {
          // Re-read after subscribing, so a change between the first read and now is not missed.
          const current = await getTaskResult({ db: s.database.db, cache: s.taskCache }, user.id, taskId);
          push(JSON.stringify(current ?? first));
          while (!done) {
            while (queue.length) {
              const data = queue.shift()!;
              await stream.writeSSE({ event: "task", data });
              if (JSON.parse(data).code !== 0) done = true;
            }
            if (done) break;
            await new Promise<void>((resolve) => {
              wake = resolve;
              // A comment line every 15 s keeps proxies from closing an idle stream.
              setTimeout(resolve, 15_000).unref();
            });
            wake = undefined;
            if (!queue.length && !done) await stream.write(": keep-alive\n\n");
          }
        } finally {
          unsubscribe();
        }
      });
    });
  }
  return app;
}
