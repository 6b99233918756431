import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { AppError } from "@/core/errors";
import { awaitResults } from "@/core/generate";
import { submitGeneration } from "@/core/submit";
import { getTaskResult } from "@/core/task-status";
import { followTasks } from "@/core/task-stream";
import type { TaskResultAnswer } from "@/core/task-status";
import type { Services } from "@/platform/services";
import { clientIp, rateLimit, readJson, requireUser, type ApiEnv } from "../context";
import { requestedWaitMs, waitDeps } from "./img-compat";

/** Task ids are ours (letters, digits, - and _): anything else, a NUL byte included, is a 400. */
const taskIdSchema = z.object({
  taskId: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/),
});

const TASK_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Tasks one stream may follow: the largest number of tasks one submit makes (the biggest plan's upload cap). */
const maxStreamTasks = (s: Services): number =>
  Math.max(s.env.SUBSCRIBER_UPLOAD_CAP, ...s.pricing.plans.map((p) => p.uploadCap ?? 0));

/**
 * `taskEvents`'s query: the spec's `taskId=<id>`, or ours, `taskIds=<id>,<id>,…` (one
 * stream for a tab's pending tasks; every id validated, duplicates dropped, at most `max`).
 */
function streamTaskIds(query: { taskId?: string; taskIds?: string }, max: number): string[] {
  if (query.taskIds === undefined) {
    const parsed = taskIdSchema.safeParse({ taskId: query.taskId });
    if (!parsed.success) throw new AppError("VALIDATION", "taskId is required");
    return [parsed.data.taskId];
  }
  if (query.taskId !== undefined) throw new AppError("VALIDATION", "Send taskId or taskIds, not both");
  const ids = z
    .string()
    .max(max * 65)
    .transform((v) => [...new Set(v.split(","))])
    .pipe(z.array(z.string().regex(TASK_ID)).min(1).max(max))
    .safeParse(query.taskIds);
  if (!ids.success)
    throw new AppError("VALIDATION", `taskIds must be 1 to ${max} task ids separated by commas`);
  return ids.data;
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
      const payload = await readJson(c);
      const { taskIds } = await submitGeneration(s.submitDeps, {
        userId: user.id,
        route,
        payload,
        idempotencyKey: c.req.header("idempotency-key"),
        ip: clientIp(c),
        hostname: new URL(c.req.url).hostname,
      });
      // The spec's v2 submit that answers immediately: `Prefer: wait` or `"wait": true` holds
      // the request until the images are ready (bounded; img-compat.ts), answering data.results.
      const waitMs = route === "v2" ? requestedWaitMs(s, c.req.header("prefer"), payload) : null;
      if (waitMs !== null) {
        c.header("Preference-Applied", "wait");
        return c.json(await awaitResults(waitDeps(s), user.id, taskIds, waitMs));
      }
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
      const s = c.get("services");
      const taskIds = streamTaskIds(
        { taskId: c.req.query("taskId"), taskIds: c.req.query("taskIds") },
        maxStreamTasks(s),
      );
      const multi = c.req.query("taskIds") !== undefined;
      // Each open stream holds a connection and listeners: a user gets a few (one per tab).
      const release = s.streamSlots.acquire(user.id);
      if (!release) {
        const max = s.streamSlots.max;
        throw new AppError(
          "RATE_LIMITED",
          `Too many live updates are open (at most ${max}). Close another tab of this site and try again.`,
          { maxStreams: max },
          { key: "tooManyStreams", values: { max } },
        );
      }
      let streaming = false;
      try {
        const firsts = new Map<string, TaskResultAnswer>();
        for (const taskId of taskIds) {
          const first = await getTaskResult(
            { db: s.database.db, cache: s.taskCache, times: s.renderTimes },
            user.id,
            taskId,
          );
          if (!first) return c.json({ message: "Task not found" }, 404);
          firsts.set(taskId, first);
        }
        streaming = true;
        return streamSSE(c, async (stream) => {
          const aborted = new AbortController();
          stream.onAbort(() => {
            aborted.abort();
            release();
          });
          try {
            const deps = { db: s.database.db, cache: s.taskCache, events: s.events, times: s.renderTimes };
            for await (const item of followTasks(deps, user.id, firsts, aborted.signal)) {
              // The spec's single-task form sends the spec's answer as is; the multi-task
              // form names the task in each event.
              if (item.kind === "answer")
                await stream.writeSSE({
                  event: "task",
                  data: JSON.stringify(multi ? { taskId: item.taskId, ...item.answer } : item.answer),
                });
              else await stream.write(": keep-alive\n\n");
            }
          } finally {
            release();
          }
        });
      } finally {
        if (!streaming) release();
      }
    });
  }
  return app;
}
