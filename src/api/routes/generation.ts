import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { AppError } from "@/core/errors";
import { submitGeneration } from "@/core/submit";
import { getTaskResult } from "@/core/task-status";
import { followTask } from "@/core/task-stream";
import { clientIp, rateLimit, requireUser, type ApiEnv } from "../context";

/** Task ids are ours (letters, digits, - and _): anything else, a NUL byte included, is a 400. */
const taskIdSchema = z.object({
  taskId: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/),
});

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
      await rateLimit(c, "submit", user.id);
      const { taskIds } = await submitGeneration(s.submitDeps, {
        userId: user.id,
        route,
        payload: await readJson(c),
        idempotencyKey: c.req.header("idempotency-key"),
        ip: clientIp(c),
        hostname: new URL(c.req.url).hostname,
      });
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
        { db: s.database.db, cache: s.taskCache, times: s.renderTimes },
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
      const first = await getTaskResult(
        { db: s.database.db, cache: s.taskCache, times: s.renderTimes },
        user.id,
        taskId,
      );
      if (!first) return c.json({ message: "Task not found" }, 404);
      return streamSSE(c, async (stream) => {
        const aborted = new AbortController();
        stream.onAbort(() => aborted.abort());
        const deps = { db: s.database.db, cache: s.taskCache, events: s.events, times: s.renderTimes };
        for await (const item of followTask(deps, user.id, taskId, first, aborted.signal)) {
          if (item.kind === "answer")
            await stream.writeSSE({ event: "task", data: JSON.stringify(item.answer) });
          else await stream.write(": keep-alive\n\n");
        }
      });
    });
  }
  return app;
}
