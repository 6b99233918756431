import { Hono } from "hono";
import { z } from "zod";
import { AppError } from "@/core/errors";
import type { GenerateRoute } from "@/core/free-form";
import {
  awaitResults,
  bodyAsksToWait,
  generate,
  getCompatResult,
  preferWait,
  submittedAnswer,
  type GenerateDeps,
  type WaitDeps,
} from "@/core/generate";
import type { Services } from "@/platform/services";
import { clientIp, rateLimit, readJson, requireUser, type ApiEnv } from "../context";

/**
 * The spec's other model routes (section 7) and its generic generate call, on the one task
 * system (src/core/generate.ts): submit/poll pairs, the immediate `create`, and the
 * webhook-type read. The nano-banana pair stays in generation.ts.
 */

/** Longest an immediate call holds its request: the task's own limit, at most 90 s (proxies close idle requests). */
export const MAX_WAIT_SECONDS = 90;
export const waitBoundMs = (s: Services): number =>
  Math.min(s.env.TASK_TIMEOUT_SECONDS, MAX_WAIT_SECONDS) * 1000;

/** The wait a request asked for (Prefer: wait[=n] or "wait": true), bounded; null: answer at once. */
export function requestedWaitMs(s: Services, prefer: string | undefined, payload: unknown): number | null {
  const seconds = preferWait(prefer) ?? (bodyAsksToWait(payload) ? Infinity : null);
  return seconds === null ? null : Math.min(seconds * 1000, waitBoundMs(s));
}

export const generateDeps = (s: Services): GenerateDeps => ({
  ...s.submitDeps,
  canRender: (effectId) => s.renderer.supports(effectId),
  maxImages: (effectId) => s.renderer.maxImages?.(effectId),
});

export const waitDeps = (s: Services): WaitDeps => ({
  db: s.database.db,
  cache: s.taskCache,
  events: s.events,
  times: s.renderTimes,
  tasks: s.taskDeps,
});

const taskIdBody = z.object({
  taskId: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/),
});

/** Submit routes of the generic call: [path, route it records, answers only when ready]. */
const SUBMITS: ReadonlyArray<[string, GenerateRoute, boolean]> = [
  ["/create", "create", true],
  ["/create-v2", "create-v2", false],
  ["/flux-kontext-v2/submit", "flux-kontext-v2", false],
  ["/flux-kontext-dev-v2", "flux-kontext-dev-v2", false],
];

/** Poll routes: each answers any of the caller's tasks (the routes differ only in name). */
const POLLS = [
  "/create-result",
  "/create-v2-result",
  "/flux-kontext-v2/taskResult",
  "/flux-kontext-dev-v2-result",
];

export function imgCompatRoutes() {
  const app = new Hono<ApiEnv>();

  for (const [path, route, immediate] of SUBMITS) {
    app.post(path, async (c) => {
      const user = requireUser(c);
      const s = c.get("services");
      await rateLimit(c, "submit", user.id);
      const payload = await readJson(c);
      const { taskIds } = await generate(generateDeps(s), {
        userId: user.id,
        route,
        payload,
        idempotencyKey: c.req.header("idempotency-key"),
        ip: clientIp(c),
        hostname: new URL(c.req.url).hostname,
      });
      const waitMs = immediate ? waitBoundMs(s) : requestedWaitMs(s, c.req.header("prefer"), payload);
      if (waitMs === null) return c.json(submittedAnswer(taskIds));
      if (!immediate) c.header("Preference-Applied", "wait");
      return c.json(await awaitResults(waitDeps(s), user.id, taskIds, waitMs));
    });
  }

  for (const path of POLLS) {
    app.post(path, async (c) => {
      const user = requireUser(c);
      const parsed = taskIdBody.safeParse(await readJson(c));
      if (!parsed.success) throw new AppError("VALIDATION", "taskId is required");
      const answer = await getCompatResult(waitDeps(c.get("services")), user.id, parsed.data.taskId);
      if (!answer) return c.json({ message: "Task not found" }, 404);
      return c.json(answer);
    });
  }

  // The webhook-type read: GET /api/img/result/{taskId}?type=img, answering imgAfterSrc.
  app.get("/result/:taskId", async (c) => {
    const user = requireUser(c);
    const parsed = taskIdBody.safeParse({ taskId: c.req.param("taskId") });
    if (!parsed.success) throw new AppError("VALIDATION", "taskId is required");
    const type = c.req.query("type");
    if (type !== undefined && type !== "img")
      throw new AppError("VALIDATION", 'type must be "img" (the only result type this server makes)');
    const answer = await getCompatResult(waitDeps(c.get("services")), user.id, parsed.data.taskId);
    if (!answer) return c.json({ message: "Task not found" }, 404);
    return c.json(answer);
  });

  return app;
}
