import type { Db } from "./db";
import type { TaskEventBus } from "./ports/task-events";
import {
  answerFor,
  getTaskResult,
  type RenderTimes,
  type TaskResultAnswer,
  type TaskStatusCache,
} from "./task-status";

/** What a task stream yields: a task's answer to send, or a keep-alive when nothing happened for a while. */
export type TaskStreamItem =
  { kind: "answer"; taskId: string; answer: TaskResultAnswer } | { kind: "keepAlive" };

export interface TaskStreamDeps {
  db: Db;
  cache: TaskStatusCache;
  events: TaskEventBus;
  times?: RenderTimes;
}

/**
 * The server-sent-events loop of `taskEvents`, framework-free, for one task or several
 * (one stream per browser tab carries all of its pending tasks): yields each task's
 * current answer, then each change pushed by task events, and ends once every task has
 * given a final answer (success or failure) or when `signal` aborts. While nothing changes
 * it yields a keep-alive every `keepAliveMs` (a comment line keeps proxies from closing an
 * idle stream). The route writes what it yields; the caller checks ownership first
 * (`firsts`: the answer it read for each task).
 */
export async function* followTasks(
  deps: TaskStreamDeps,
  userId: string,
  firsts: ReadonlyMap<string, TaskResultAnswer>,
  signal: AbortSignal,
  keepAliveMs = 15_000,
): AsyncGenerator<TaskStreamItem> {
  let done = false;
  let wake: (() => void) | undefined;
  const queue: Array<{ taskId: string; answer: TaskResultAnswer }> = [];
  /** Tasks without a final answer yet, with their unsubscribe functions. */
  const pending = new Map<string, () => void>();
  const push = (taskId: string, answer: TaskResultAnswer) => {
    if (!pending.has(taskId)) return;
    queue.push({ taskId, answer });
    wake?.();
  };
  for (const taskId of firsts.keys()) {
    pending.set(
      taskId,
      deps.events.subscribe(taskId, (e) => {
        if (e.userId !== userId) return;
        // Progress and the estimate ride along while the task runs (the cache knows its effect).
        const known = deps.cache.get(taskId);
        push(
          taskId,
          answerFor(
            deps,
            taskId,
            { ...e, effectId: known?.effectId, startedAt: known?.startedAt ?? null },
            e.progress,
          ),
        );
      }),
    );
  }
  const onAbort = () => {
    done = true;
    wake?.();
  };
  signal.addEventListener("abort", onAbort);
  try {
    // Re-read after subscribing, so a change between the first read and now is not missed.
    const current = await Promise.all(
      [...firsts].map(
        async ([taskId, first]) => [taskId, (await getTaskResult(deps, userId, taskId)) ?? first] as const,
      ),
    );
    for (const [taskId, answer] of current) push(taskId, answer);
    if (signal.aborted) done = true;
    while (!done) {
      while (queue.length) {
        const { taskId, answer } = queue.shift()!;
        if (!pending.has(taskId)) continue; // already ended (a late duplicate)
        yield { kind: "answer", taskId, answer };
        if (answer.code !== 0) {
          pending.get(taskId)?.();
          pending.delete(taskId);
        }
      }
      if (!pending.size || done) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, keepAliveMs).unref();
      });
      wake = undefined;
      if (!queue.length && !done) yield { kind: "keepAlive" };
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    for (const unsubscribe of pending.values()) unsubscribe();
  }
}

/** One task's stream (the spec's `taskEvents?taskId=`): `followTasks` with a single task. */
export function followTask(
  deps: TaskStreamDeps,
  userId: string,
  taskId: string,
  first: TaskResultAnswer,
  signal: AbortSignal,
  keepAliveMs = 15_000,
): AsyncGenerator<TaskStreamItem> {
  return followTasks(deps, userId, new Map([[taskId, first]]), signal, keepAliveMs);
}

/**
 * Open streams per user, so that one user cannot hold thousands of connections (and their
 * event listeners). `max` 0: no cap. Counted in this process (scale-out: per web process).
 */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(readonly max: number) {}

  /** Takes a slot; null when the user already holds `max`. The function returned gives it back (once). */
  acquire(userId: string): (() => void) | null {
    const held = this.open.get(userId) ?? 0;
    if (this.max > 0 && held >= this.max) return null;
    this.open.set(userId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.open.get(userId) ?? 1) - 1;
      if (now > 0) this.open.set(userId, now);
      else this.open.delete(userId);
    };
  }

  /** Streams the user holds open in this process. */
  count(userId: string): number {
    return this.open.get(userId) ?? 0;
  }
}
