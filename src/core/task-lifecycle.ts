import { and, asc, eq, inArray, lt, or, sql } from "drizzle-orm";
import { getEffect } from "./catalogue";
import { FREE_FORM_TITLE, routeTier } from "./free-form";
import { addCreditsTx } from "./credits";
import type { Db } from "./db";
import { Messages } from "./errors";
import { newId } from "./ids";
import type { JobQueue } from "./ports/job-queue";
import type { Metrics } from "./ports/metrics";
import { EngineError, type Renderer, type RenderProgress, type RenderResult } from "./ports/renderer";
import type { ObjectStorage } from "./ports/storage";
import type { TaskEvent, TaskEventBus } from "./ports/task-events";
import { image, task, taskInput } from "./schema";
import { imagePath } from "./task-status";
import { releaseOriginals } from "./originals";
import { loadUploads, uploadPath } from "./uploads";

/**
 * The task lifecycle: queued -> running -> succeeded | failed. Every transition is a
 * conditional UPDATE on the current state, so a job delivered twice, a timeout racing a
 * success, or a restart mid-render each settle the task exactly once. Failure refunds
 * the task's credits under the key `refund:{taskId}`, which the ledger applies once.
 */

/**
 * Why a task failed: `text` is the English failedReason (the spec's field); `code` lets
 * the client show it in the user's language (message key `errors.server.task_<code>`).
 */
export interface FailReason {
  code: string;
  text: string;
}

export const TaskReasons = {
  timeout: { code: "timeout", text: "Generation timed out. Your credits have been refunded." },
  sourceGone: {
    code: "sourceGone",
    text: "The uploaded image is no longer available. Please upload it again.",
  },
  interrupted: {
    code: "interrupted",
    text: "Generation was interrupted by a server restart. Your credits have been refunded.",
  },
  internal: { code: "internal", text: `${Messages.generationFailed}. Your credits have been refunded.` },
} as const satisfies Record<string, FailReason>;

/** How many times a task may start (a restart mid-render allows one more try). */
export const MAX_ATTEMPTS = 2;

export interface TaskDeps {
  db: Db;
  storage: ObjectStorage;
  events: TaskEventBus;
  renderer: Renderer;
  log?: (msg: string, extra?: Record<string, unknown>) => void;
  metrics?: Metrics;
}

async function publish(deps: Pick<TaskDeps, "events">, e: TaskEvent): Promise<void> {
  await deps.events.publish(e);
}

async function inputUploadIds(db: Db, taskId: string): Promise<string[]> {
  const rows = await db
    .select({ uploadId: taskInput.uploadId })
    .from(taskInput)
    .where(eq(taskInput.taskId, taskId))
    .orderBy(asc(taskInput.position));
  return rows.map((r) => r.uploadId);
}

/**
 * A new task's first step, after the transaction that charged and created it commits:
 * announce it as queued (status cache, SSE streams) and hand it to the queue. Called by
 * submit; the rest of the lifecycle publishes every later transition.
 */
export async function enqueueCreated(
  deps: { events: TaskEventBus; queue: JobQueue; metrics?: Metrics },
  tasks: Array<{ id: string; userId: string; credits: number }>,
): Promise<void> {
  for (const t of tasks) {
    await publish(deps, {
      taskId: t.id,
      userId: t.userId,
      state: "queued",
      imageUrl: null,
      failedReason: null,
      failedCode: null,
    });
    await deps.queue.enqueue(t.id);
    deps.metrics?.creditsCharged(t.credits);
  }
}

/**
 * Fails an unfinished task and refunds its credits, in one transaction. Returns false if
 * the task had already ended (nothing changes then). Deletes originals no longer needed.
 */
export async function failTask(
  deps: Pick<TaskDeps, "db" | "storage" | "events" | "metrics">,
  taskId: string,
  reason: FailReason,
  /** The engine that failed it, when known (the admin console's per-engine figures). */
  provider?: string,
): Promise<boolean> {
  const failed = await deps.db.transaction(async (tx) => {
    const rows = await tx
      .update(task)
      .set({
        state: "failed",
        failedReason: reason.text,
        failedCode: reason.code,
        finishedAt: new Date(),
        ...(provider ? { provider } : {}),
      })
      .where(and(eq(task.id, taskId), inArray(task.state, ["queued", "running"])))
      .returning({
        userId: task.userId,
        credits: task.credits,
        effectId: task.effectId,
        startedAt: task.startedAt,
        createdAt: task.createdAt,
      });
    const row = rows[0];
    if (!row) return null;
    await addCreditsTx(tx, {
      userId: row.userId,
      amount: row.credits,
      kind: "refund",
      key: `refund:${taskId}`,
      taskId,
      note: getEffect(row.effectId)?.title ?? FREE_FORM_TITLE[row.effectId] ?? row.effectId,
    });
    return row;
  });
  if (!failed) return false;
  const began = (failed.startedAt ?? failed.createdAt).getTime();
  deps.metrics?.taskFinished(failed.effectId, "failed", (Date.now() - began) / 1000, reason.code);
  deps.metrics?.creditsRefunded(failed.credits);
  // Originals go before the news: whoever hears "failed" finds them already deleted.
  await releaseOriginals(deps, await inputUploadIds(deps.db, taskId));
  await publish(deps, {
    taskId,
    userId: failed.userId,
    state: "failed",
    imageUrl: null,
    failedReason: reason.text,
    failedCode: reason.code,
  });
  return true;
}

/**
 * Runs one task: the queue's job handler. Safe to call twice or for a task that has
 * already ended: only the call that moves it from queued to running does any work.
 */
export async function runTask(
  deps: TaskDeps,
  taskId: string,
  opts: { redelivered?: boolean } = {},
): Promise<void> {
  try {
    await runClaimed(deps, taskId, opts.redelivered ?? false);
  } catch (err) {
    // Whatever broke (storage, database, a bug), the task ends now with a refund rather
    // than waiting for its deadline.
    deps.log?.("task crashed", { taskId, err: String(err) });
    await failTask(deps, taskId, TaskReasons.internal);
  }
}

async function runClaimed(deps: TaskDeps, taskId: string, redelivered: boolean): Promise<void> {
  // A queued task is claimed by whoever gets its job first. A "running" one is taken over
  // only on a redelivery (its worker died) and only while it has an attempt left.
  const claimable = redelivered
    ? or(eq(task.state, "queued"), and(eq(task.state, "running"), lt(task.attempts, MAX_ATTEMPTS)))
    : eq(task.state, "queued");
  const claimed = await deps.db
    .update(task)
    .set({ state: "running", attempts: sql`${task.attempts} + 1`, startedAt: new Date() })
    .where(and(eq(task.id, taskId), claimable, sql`${task.deadlineAt} > now()`))
    .returning();
  const t = claimed[0];
  if (!t) {
    // A redelivered task whose attempts are spent ends here, refunded, not at its deadline.
    if (redelivered) await failTask(deps, taskId, TaskReasons.interrupted);
    return;
  }
  await publish(deps, {
    taskId,
    userId: t.userId,
    state: "running",
    imageUrl: null,
    failedReason: null,
    failedCode: null,
  });

  const uploadIds = await inputUploadIds(deps.db, taskId);
  const { images, missing } = await loadUploads(deps, uploadIds, { read: true });
  if (missing.length) {
    await failTask(deps, taskId, TaskReasons.sourceGone);
    return;
  }

  // Stop rendering when the task's window closes; the sweeper fails it then.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.max(0, t.deadlineAt.getTime() - Date.now()));
  let result: RenderResult;
  const progress = progressReporter(deps, taskId, t.userId);
  try {
    result = await deps.renderer.render(
      {
        effectId: t.effectId,
        route: routeTier(t.route),
        images,
        options: t.options,
        prompt: t.prompt,
        seed: t.seed,
      },
      controller.signal,
      progress.report,
    );
  } catch (err) {
    const engineError = err instanceof EngineError ? err : null;
    const reason: FailReason = controller.signal.aborted
      ? TaskReasons.timeout
      : engineError
        ? { code: engineError.code, text: `${engineError.reason} Your credits have been refunded.` }
        : TaskReasons.internal;
    if (!engineError) deps.log?.("task render crashed", { taskId, err: String(err) });
    const failedBy = engineError?.engineId ?? (deps.renderer.id === "router" ? undefined : deps.renderer.id);
    await failTask(deps, taskId, reason, failedBy);
    return;
  } finally {
    clearTimeout(timer);
    // No progress may follow the outcome (a late "running" would shadow it in caches).
    progress.stop();
  }

  const imageId = newId();
  const ext = result.mime === "image/png" ? "png" : result.mime === "image/webp" ? "webp" : "jpg";
  const storageKey = `images/${imageId}.${ext}`;
  await deps.storage.put(storageKey, result.bytes, result.mime);
  const sourceUrls = uploadIds.map(uploadPath);
  const won = await deps.db.transaction(async (tx) => {
    const rows = await tx
      .update(task)
      .set({ state: "succeeded", finishedAt: new Date(), provider: result.provider })
      .where(and(eq(task.id, taskId), eq(task.state, "running")))
      .returning({ id: task.id });
    if (!rows[0]) return false;
    await tx.insert(image).values({
      id: imageId,
      taskId,
      userId: t.userId,
      storageKey,
      mime: result.mime,
      width: result.width,
      height: result.height,
      prompt: t.prompt,
      seed: t.seed,
      sourceUrls,
      provider: result.provider,
      model: result.model,
    });
    return true;
  });
  if (!won) {
    // The task timed out (and was refunded) while rendering: drop the late output.
    await deps.storage.delete(storageKey);
    return;
  }
  // Originals go before the news: whoever hears "succeeded" finds them already deleted.
  await releaseOriginals(deps, uploadIds);
  await publish(deps, {
    taskId,
    userId: t.userId,
    state: "succeeded",
    imageUrl: imagePath(imageId),
    failedReason: null,
    failedCode: null,
  });
  deps.metrics?.taskFinished(
    t.effectId,
    "succeeded",
    (Date.now() - (t.startedAt ?? t.createdAt).getTime()) / 1000,
  );
}

/**
 * Publishes a running task's progress as task events (SSE and the status cache hear it),
 * at most one every half second so a fast sampler does not flood the bus; the last report
 * before a pause is always sent.
 */
function progressReporter(
  deps: Pick<TaskDeps, "events" | "log">,
  taskId: string,
  userId: string,
): { report: (progress: RenderProgress) => void; stop: () => void } {
  let last = 0;
  let stopped = false;
  let pending: RenderProgress | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const send = (progress: RenderProgress) => {
    last = Date.now();
    pending = null;
    const event = {
      taskId,
      userId,
      state: "running" as const,
      imageUrl: null,
      failedReason: null,
      failedCode: null,
    };
    deps.events
      .publish({ ...event, progress })
      .catch((err) => deps.log?.("progress not published", { taskId, err: String(err) }));
  };
  return {
    report(progress) {
      if (stopped) return;
      const wait = 500 - (Date.now() - last);
      if (wait <= 0) return send(progress);
      pending = progress;
      timer ??= setTimeout(() => {
        timer = null;
        if (pending && !stopped) send(pending);
      }, wait);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/** Fails, with a refund, every unfinished task whose window has closed. */
export async function sweepExpiredTasks(
  deps: Pick<TaskDeps, "db" | "storage" | "events" | "metrics">,
): Promise<number> {
  const expired = await deps.db
    .select({ id: task.id })
    .from(task)
    .where(and(inArray(task.state, ["queued", "running"]), lt(task.deadlineAt, new Date())))
    .limit(500);
  let n = 0;
  for (const { id } of expired) if (await failTask(deps, id, TaskReasons.timeout)) n++;
  return n;
}

/**
 * At start-up on one machine, tasks left "running" were cut off by the restart. Each runs
 * again if it has an attempt left and time in its window; otherwise it fails with a
 * refund. Returns the ids to enqueue (those re-queued plus those still queued).
 */
export async function recoverTasks(
  deps: Pick<TaskDeps, "db" | "storage" | "events" | "metrics">,
): Promise<string[]> {
  const stuck = await deps.db
    .select({ id: task.id, attempts: task.attempts, deadlineAt: task.deadlineAt })
    .from(task)
    .where(eq(task.state, "running"));
  for (const t of stuck) {
    if (t.attempts < MAX_ATTEMPTS && t.deadlineAt.getTime() > Date.now()) {
      await deps.db
        .update(task)
        .set({ state: "queued" })
        .where(and(eq(task.id, t.id), eq(task.state, "running")));
    } else {
      await failTask(deps, t.id, TaskReasons.interrupted);
    }
  }
  await sweepExpiredTasks(deps);
  const queued = await deps.db
    .select({ id: task.id })
    .from(task)
    .where(eq(task.state, "queued"))
    .orderBy(asc(task.createdAt));
  return queued.map((q) => q.id);
}

/**
 * Queued tasks that have waited longer than `olderThanMs`: in scale-out mode a job can be
 * lost (a Redis restart without persistence), so workers enqueue these again. A duplicate
 * job is harmless: only one claim succeeds.
 */
export async function staleQueuedTasks(db: Db, olderThanMs: number): Promise<string[]> {
  const rows = await db
    .select({ id: task.id })
    .from(task)
    .where(
      and(
        eq(task.state, "queued"),
        lt(task.createdAt, new Date(Date.now() - olderThanMs)),
        sql`${task.deadlineAt} > now()`,
      ),
    )
    .limit(500);
  return rows.map((r) => r.id);
}
