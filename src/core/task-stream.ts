import type { Db } from "./db";
import type { TaskEventBus } from "./ports/task-events";
import {
  answerFor,
  getTaskResult,
  type RenderTimes,
  type TaskResultAnswer,
  type TaskStatusCache,
} from "./task-status";

/** What a task stream yields: an answer to send, or a keep-alive when nothing happened for a while. */
export type TaskStreamItem = { kind: "answer"; answer: TaskResultAnswer } | { kind: "keepAlive" };

export interface TaskStreamDeps {
  db: Db;
  cache: TaskStatusCache;
  events: TaskEventBus;
  times?: RenderTimes;
}

/**
 * The server-sent-events loop of `taskEvents`, framework-free: yields the owner's current
 * answer, then each change pushed by task events, and ends after a final answer (success
 * or failure) or when `signal` aborts. While nothing changes it yields a keep-alive every
 * `keepAliveMs` (a comment line keeps proxies from closing an idle stream). The route
 * writes what it yields; the caller checks ownership first (`first`: the answer it read).
 */
export async function* followTask(
  deps: TaskStreamDeps,
  userId: string,
  taskId: string,
  first: TaskResultAnswer,
  signal: AbortSignal,
  keepAliveMs = 15_000,
): AsyncGenerator<TaskStreamItem> {
  let done = false;
  let wake: (() => void) | undefined;
  const queue: TaskResultAnswer[] = [];
  const push = (answer: TaskResultAnswer) => {
    queue.push(answer);
    wake?.();
  };
  const unsubscribe = deps.events.subscribe(taskId, (e) => {
    if (e.userId !== userId) return;
    // Progress and the estimate ride along while the task runs (the cache knows its effect).
    const known = deps.cache.get(taskId);
    push(
      answerFor(
        deps,
        taskId,
        { ...e, effectId: known?.effectId, startedAt: known?.startedAt ?? null },
        e.progress,
      ),
    );
  });
  const onAbort = () => {
    done = true;
    wake?.();
  };
  signal.addEventListener("abort", onAbort);
  try {
    // Re-read after subscribing, so a change between the first read and now is not missed.
    const current = await getTaskResult(deps, userId, taskId);
    push(current ?? first);
    if (signal.aborted) done = true;
    while (!done) {
      while (queue.length) {
        const answer = queue.shift()!;
        yield { kind: "answer", answer };
        if (answer.code !== 0) done = true;
      }
      if (done) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, keepAliveMs).unref();
      });
      wake = undefined;
      if (!queue.length && !done) yield { kind: "keepAlive" };
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    unsubscribe();
  }
}
