import { and, desc, eq, gte, isNotNull } from "drizzle-orm";
import type { Db } from "./db";
import { Messages } from "./errors";
import type { RenderProgress } from "./ports/renderer";
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
  /** Ours: while pending, the backend's progress (steps done, queue position), if it tells. */
  progress: RenderProgress | null;
  /** Ours: while pending, about how many seconds are left, from recent renders of the effect. */
  etaSeconds: number | null;
}

export interface TaskSnapshot {
  userId: string;
  state: TaskState;
  imageUrl: string | null;
  failedReason: string | null;
  failedCode: string | null;
  /** For the estimate: which effect, and when the render started (ms; null while queued). */
  effectId?: string;
  startedAt?: number | null;
}

/** What an answer needs beyond the snapshot: live progress and a typical render time. */
export interface AnswerExtras {
  progress?: RenderProgress | null;
  /** Typical seconds a render of this effect takes now (null: not enough history). */
  typicalSeconds?: number | null;
  now?: number;
}

export function toAnswer(
  s: Pick<TaskSnapshot, "state" | "imageUrl" | "failedReason" | "failedCode"> &
    Partial<Pick<TaskSnapshot, "startedAt">>,
  extras: AnswerExtras = {},
): TaskResultAnswer {
  const code = s.state === "succeeded" ? 1 : s.state === "failed" ? 2 : 0;
  return {
    code,
    status: code,
    data: { imageUrl: code === 1 ? s.imageUrl : null },
    failedReason: code === 2 ? (s.failedReason ?? Messages.generationFailed) : null,
    failedCode: code === 2 ? (s.failedCode ?? "internal") : null,
    progress: code === 0 ? (extras.progress ?? null) : null,
    etaSeconds: code === 0 ? eta(s, extras) : null,
  };
}

/** Seconds left: the typical render time less what has run, never below 1; the whole of it while queued. */
function eta(s: Partial<Pick<TaskSnapshot, "startedAt" | "state">>, extras: AnswerExtras): number | null {
  const typical = extras.typicalSeconds;
  if (!typical) return null;
  const p = extras.progress;
  if (p && p.max > 0 && p.value > 0 && s.startedAt) {
    // Steps reported: extrapolate from the pace so far.
    const elapsed = ((extras.now ?? Date.now()) - s.startedAt) / 1000;
    return Math.max(1, Math.round((elapsed * (p.max - p.value)) / p.value));
  }
  if (s.state === "running" && s.startedAt) {
    return Math.max(1, Math.round(typical - ((extras.now ?? Date.now()) - s.startedAt) / 1000));
  }
  return Math.round(typical);
}

/**
 * Typical render times per effect, from the database (so they are right in scale-out):
 * the median of the last successful renders of the effect by the provider that rendered
 * it most recently. Read synchronously from a cache refreshed in the background, because
 * polling is the hottest path.
 */
export class RenderTimes {
  private readonly cache = new Map<string, { seconds: number | null; at: number; loading: boolean }>();
  constructor(
    private readonly db: Db,
    private readonly ttlMs = 60_000,
    /** How many recent renders count, and how few are too few to say anything. */
    private readonly window = 20,
    private readonly minSamples = 3,
  ) {}

  /** The typical seconds for the effect, or null (no history yet, or still loading). */
  typical(effectId: string, now = Date.now()): number | null {
    const hit = this.cache.get(effectId);
    // No history yet is asked again sooner than a known figure (the first renders arrive).
    const ttl = hit?.seconds === null ? Math.min(this.ttlMs, 2_000) : this.ttlMs;
    if (!hit || (now - hit.at > ttl && !hit.loading)) void this.refresh(effectId, now);
    return hit?.seconds ?? null;
  }

  /** Reads the recent renders of one effect (awaitable for tests and warm-up). */
  async refresh(effectId: string, now = Date.now()): Promise<number | null> {
    const previous = this.cache.get(effectId);
    this.cache.set(effectId, { seconds: previous?.seconds ?? null, at: previous?.at ?? 0, loading: true });
    try {
      const rows = await this.db
        .select({ provider: image.provider, startedAt: task.startedAt, finishedAt: task.finishedAt })
        .from(task)
        .innerJoin(image, eq(image.taskId, task.id))
        .where(
          and(
            eq(task.effectId, effectId),
            eq(task.state, "succeeded"),
            isNotNull(task.startedAt),
            isNotNull(task.finishedAt),
            gte(task.finishedAt, new Date(now - 7 * 24 * 3600_000)),
          ),
        )
        .orderBy(desc(task.finishedAt))
        .limit(this.window);
      const provider = rows[0]?.provider;
      const durations = rows
        .filter((r) => r.provider === provider)
        .map((r) => (r.finishedAt!.getTime() - r.startedAt!.getTime()) / 1000)
        .sort((a, b) => a - b);
      const seconds =
        durations.length >= this.minSamples
          ? Math.max(1, durations[Math.floor(durations.length / 2)]!)
          : null;
      this.cache.set(effectId, { seconds, at: now, loading: false });
      return seconds;
    } catch {
      this.cache.set(effectId, { seconds: previous?.seconds ?? null, at: now, loading: false });
      return previous?.seconds ?? null;
    }
  }
}

/**
 * Task snapshots kept in memory, because polling is the product's hottest path. Entries
 * come from task events (every transition publishes one) and from database reads on a
 * miss; unfinished entries expire quickly so a missed event costs at most one re-read.
 */
export class TaskStatusCache {
  private readonly map = new Map<string, { snap: TaskSnapshot; at: number }>();
  /** The last progress of running tasks (kept apart: a snapshot re-read from the database has none). */
  private readonly progressMap = new Map<string, { progress: RenderProgress; at: number }>();
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

  apply(e: TaskEvent, now = Date.now()): void {
    const known = this.map.get(e.taskId)?.snap;
    this.set(
      e.taskId,
      {
        userId: e.userId,
        state: e.state,
        imageUrl: e.imageUrl,
        failedReason: e.failedReason,
        failedCode: e.failedCode,
        ...(known?.effectId ? { effectId: known.effectId } : {}),
        startedAt: known?.startedAt ?? (e.state === "running" ? now : null),
      },
      now,
    );
    if (e.progress && e.state === "running")
      this.progressMap.set(e.taskId, { progress: e.progress, at: now });
    if (e.state === "succeeded" || e.state === "failed") this.progressMap.delete(e.taskId);
    if (this.progressMap.size > this.maxEntries) {
      const oldest = this.progressMap.keys().next().value;
      if (oldest !== undefined) this.progressMap.delete(oldest);
    }
  }

  /** The last progress reported for a running task (forgotten a minute after the last report). */
  progress(taskId: string, now = Date.now()): RenderProgress | null {
    const hit = this.progressMap.get(taskId);
    if (!hit || now - hit.at > 60_000) return null;
    return hit.progress;
  }
}

async function loadSnapshot(db: Db, taskId: string): Promise<TaskSnapshot | null> {
  const rows = await db
    .select({
      userId: task.userId,
      state: task.state,
      failedReason: task.failedReason,
      failedCode: task.failedCode,
      effectId: task.effectId,
      startedAt: task.startedAt,
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
    effectId: r.effectId,
    startedAt: r.startedAt?.getTime() ?? null,
  };
}

/** The owner's view of a task; null for a missing task or someone else's (answered as 404). */
export async function getTaskResult(
  deps: { db: Db; cache: TaskStatusCache; times?: RenderTimes },
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
  return snap.userId === userId ? answerFor(deps, taskId, snap) : null;
}

/**
 * The spec's answer for a snapshot, with what only a pending task has: the last progress the
 * backend reported (`progress`, else the cache's) and the time left from the effect's recent
 * render times. A finished task costs no estimate lookup.
 */
export function answerFor(
  deps: { cache: TaskStatusCache; times?: RenderTimes },
  taskId: string,
  snap: Pick<TaskSnapshot, "state" | "imageUrl" | "failedReason" | "failedCode" | "effectId" | "startedAt">,
  progress?: RenderProgress | null,
): TaskResultAnswer {
  if (snap.state !== "queued" && snap.state !== "running") return toAnswer(snap);
  return toAnswer(snap, {
    progress: progress ?? deps.cache.progress(taskId),
    typicalSeconds: snap.effectId ? (deps.times?.typical(snap.effectId) ?? null) : null,
  });
}
