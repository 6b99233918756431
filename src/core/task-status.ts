import { eq } from "drizzle-orm";
import type { Db } from "./db";
import { Messages } from "./errors";
import type { TaskEvent } from "./ports/task-events";
import { image, task, type TaskState } from "./schema";

/**
 * The read side of tasks: the spec's taskResult answer, the owner's view of a task, and
 * the in-memory snapshot cache fed by task events. The lifecycle (claim, run, settle,
 * recover) is in task-lifecycle.ts; the SSE loop in task-stream.ts.
 */

export const imagePath = (id: string): string => `/api/images/${id}`;

/** The spec's taskResult answer: code/status 0 pending, 1 success, 2 failed. */
export interface TaskResultAnswer {
  code: 0 | 1 | 2;
  status: 0 | 1 | 2;
  data: { imageUrl: string | null };
  failedReason: string | null;
  /** Ours, beyond the spec: the reason's code, for a translated message. */
  failedCode: string | null;
}

export interface TaskSnapshot {
  userId: string;
  state: TaskState;
  imageUrl: string | null;
  failedReason: string | null;
  failedCode: string | null;
}

export function toAnswer(
  s: Pick<TaskSnapshot, "state" | "imageUrl" | "failedReason" | "failedCode">,
): TaskResultAnswer {
  const code = s.state === "succeeded" ? 1 : s.state === "failed" ? 2 : 0;
  return {
    code,
    status: code,
    data: { imageUrl: code === 1 ? s.imageUrl : null },
    failedReason: code === 2 ? (s.failedReason ?? Messages.generationFailed) : null,
    failedCode: code === 2 ? (s.failedCode ?? "internal") : null,
  };
}

/**
 * Task snapshots kept in memory, because polling is the product's hottest path. Entries
 * come from task events (every transition publishes one) and from database reads on a
 * miss; unfinished entries expire quickly so a missed event costs at most one re-read.
 */
export class TaskStatusCache {
  private readonly map = new Map<string, { snap: TaskSnapshot; at: number }>();
  constructor(
    private readonly maxEntries = 50_000,
    private readonly pendingTtlMs = 2_000,
  ) {}

  get(taskId: string, now = Date.now()): TaskSnapshot | undefined {
    const hit = this.map.get(taskId);
    if (!hit) return undefined;
    const terminal = hit.snap.state === "succeeded" || hit.snap.state === "failed";
    if (!terminal && now - hit.at > this.pendingTtlMs) return undefined;
    return hit.snap;
  }

  set(taskId: string, snap: TaskSnapshot, now = Date.now()): void {
    this.map.delete(taskId);
    this.map.set(taskId, { snap, at: now });
    if (this.map.size > this.maxEntries) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
  }

  apply(e: TaskEvent): void {
    this.set(e.taskId, {
      userId: e.userId,
      state: e.state,
      imageUrl: e.imageUrl,
      failedReason: e.failedReason,
      failedCode: e.failedCode,
    });
  }
}

async function loadSnapshot(db: Db, taskId: string): Promise<TaskSnapshot | null> {
  const rows = await db
    .select({
      userId: task.userId,
      state: task.state,
      failedReason: task.failedReason,
      failedCode: task.failedCode,
      imageId: image.id,
    })
    .from(task)
    .leftJoin(image, eq(image.taskId, task.id))
    .where(eq(task.id, taskId));
  const r = rows[0];
  if (!r) return null;
  return {
    userId: r.userId,
    state: r.state,
    failedReason: r.failedReason,
    failedCode: r.failedCode,
    imageUrl: r.imageId ? imagePath(r.imageId) : null,
  };
}

/** The owner's view of a task; null for a missing task or someone else's (answered as 404). */
export async function getTaskResult(
  deps: { db: Db; cache: TaskStatusCache },
  userId: string,
  taskId: string,
): Promise<TaskResultAnswer | null> {
  let snap = deps.cache.get(taskId);
  if (!snap) {
    const loaded = await loadSnapshot(deps.db, taskId);
    if (!loaded) return null;
    deps.cache.set(taskId, loaded);
    snap = loaded;
  }
  return snap.userId === userId ? toAnswer(snap) : null;
}
