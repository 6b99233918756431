import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { Db } from "./db";
import type { TaskEvent, TaskEventBus } from "./ports/task-events";
import { TaskStatusCache, type TaskResultAnswer } from "./task-status";
import { followTasks, StreamSlots, type TaskStreamItem } from "./task-stream";

/** Task events within the test (the in-process adapter's behaviour, without importing adapters). */
function bus(): TaskEventBus & { listeners(taskId: string): number } {
  const e = new EventEmitter();
  return {
    async publish(ev) {
      e.emit(`task:${ev.taskId}`, ev);
    },
    subscribeAll: () => () => {},
    subscribe(taskId, l) {
      e.on(`task:${taskId}`, l);
      return () => e.off(`task:${taskId}`, l);
    },
    async close() {},
    listeners: (taskId) => e.listenerCount(`task:${taskId}`),
  };
}

const pending: TaskResultAnswer = {
  code: 0,
  status: 0,
  data: { imageUrl: null },
  failedReason: null,
  failedCode: null,
  progress: null,
  etaSeconds: null,
};
const event = (taskId: string, state: TaskEvent["state"], userId = "u1"): TaskEvent => ({
  taskId,
  userId,
  state,
  imageUrl: state === "succeeded" ? `/api/images/${taskId}` : null,
  failedReason: state === "failed" ? "boom" : null,
  failedCode: state === "failed" ? "engine" : null,
});

describe("task stream: several tasks on one stream", () => {
  it("yields each task's answers, named, and ends once every task is final", async () => {
    const events = bus();
    const cache = new TaskStatusCache();
    for (const id of ["a", "b", "c"]) cache.apply(event(id, "queued"));
    const deps = { db: {} as Db, cache, events };
    const firsts = new Map(["a", "b", "c"].map((id) => [id, pending]));
    const got: TaskStreamItem[] = [];
    const done = (async () => {
      for await (const item of followTasks(deps, "u1", firsts, new AbortController().signal)) {
        got.push(item);
        if (got.length === 3) {
          // Every first answer is out: the tasks move on.
          for (const e of [
            event("b", "running"),
            event("a", "succeeded"),
            event("a", "failed"), // after its end: ignored
            event("c", "succeeded", "someone-else"), // another user's event: ignored
            event("c", "failed"),
            event("b", "succeeded"),
          ]) {
            cache.apply(e);
            await events.publish(e);
          }
        }
      }
    })();
    await done;
    const answers = got.flatMap((i) => (i.kind === "answer" ? [[i.taskId, i.answer.code]] : []));
    expect(answers).toEqual([
      ["a", 0],
      ["b", 0],
      ["c", 0],
      ["b", 0],
      ["a", 1],
      ["c", 2],
      ["b", 1],
    ]);
    for (const id of ["a", "b", "c"]) expect(events.listeners(id)).toBe(0);
  });

  it("stops and unsubscribes when the client goes away", async () => {
    const events = bus();
    const cache = new TaskStatusCache();
    cache.apply(event("a", "queued"));
    const abort = new AbortController();
    const it = followTasks({ db: {} as Db, cache, events }, "u1", new Map([["a", pending]]), abort.signal);
    expect((await it.next()).value).toMatchObject({ kind: "answer", taskId: "a" });
    expect(events.listeners("a")).toBe(1);
    const next = it.next();
    abort.abort();
    expect((await next).done).toBe(true);
    expect(events.listeners("a")).toBe(0);
  });
});

describe("stream slots", () => {
  it("gives a user at most max slots, each released once, others unaffected; 0 means no cap", () => {
    const slots = new StreamSlots(2);
    const a = slots.acquire("u1")!;
    const b = slots.acquire("u1")!;
    expect(slots.acquire("u1")).toBeNull();
    expect(slots.acquire("u2")).not.toBeNull();
    a();
    a(); // twice: still one release
    expect(slots.count("u1")).toBe(1);
    expect(slots.acquire("u1")).not.toBeNull();
    b();
    expect(slots.count("u1")).toBe(1);
    const open = new StreamSlots(0);
    for (let i = 0; i < 100; i++) expect(open.acquire("u1")).not.toBeNull();
  });
});
