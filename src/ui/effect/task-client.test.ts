import { describe, expect, it } from "vitest";
import {
  ClientMessages,
  classifySubmitFailure,
  downloadFileName,
  extractTaskIds,
  followTask,
  readTaskAnswer,
  TaskStreamHub,
} from "./task-client";

class FakeSource extends EventTarget {
  onerror: (() => void) | null = null;
  closed = false;
  constructor(readonly url = "") {
    super();
  }
  close() {
    this.closed = true;
  }
  send(data: unknown) {
    this.dispatchEvent(new MessageEvent("task", { data: JSON.stringify(data) }));
  }
}

/** Lets the hub open its stream (it gathers the tasks followed in the same tick first). */
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("task client: answer shapes", () => {
  it("reads task ids from data.taskIds, data.taskId or taskId", () => {
    expect(extractTaskIds({ data: { taskIds: ["a", "b"] } })).toEqual(["a", "b"]);
    expect(extractTaskIds({ data: { taskId: "c" } })).toEqual(["c"]);
    expect(extractTaskIds({ taskId: "d" })).toEqual(["d"]);
    expect(extractTaskIds({ message: "ok" })).toEqual([]);
  });

  it("reads code or status, every image field and every reason field", () => {
    expect(readTaskAnswer({ code: 0 })).toEqual({ kind: "pending" });
    expect(readTaskAnswer({ status: 7 })).toEqual({ kind: "pending" });
    expect(readTaskAnswer({ code: 1, data: { imageUrl: "/a" } })).toEqual({
      kind: "success",
      imageUrl: "/a",
    });
    expect(readTaskAnswer({ status: 1, data: { imgAfterSrc: "/b" } })).toEqual({
      kind: "success",
      imageUrl: "/b",
    });
    expect(readTaskAnswer({ code: 1, imageUrl: "/c" })).toEqual({ kind: "success", imageUrl: "/c" });
    expect(readTaskAnswer({ code: 1, url: "/d" })).toEqual({ kind: "success", imageUrl: "/d" });
    expect(readTaskAnswer({ code: 1, data: {} })).toEqual({
      kind: "failed",
      reason: ClientMessages.noImageUrl,
    });
    expect(readTaskAnswer({ code: 2, failedReason: "x" })).toEqual({ kind: "failed", reason: "x" });
    expect(readTaskAnswer({ status: 2, msg: "y" })).toEqual({ kind: "failed", reason: "y" });
    expect(readTaskAnswer({ code: 2, message: "z" })).toEqual({ kind: "failed", reason: "z" });
    expect(readTaskAnswer({ code: 2 })).toEqual({ kind: "failed", reason: "Image generation failed" });
  });

  it("maps submit failures to the spec's error rows", () => {
    expect(classifySubmitFailure(401, {})).toEqual({ kind: "signIn", message: "Please sign in to continue" });
    expect(classifySubmitFailure(402, { message: "Insufficient credits" })).toEqual({
      kind: "insufficientCredits",
    });
    expect(classifySubmitFailure(400, { message: "Bot verification failed" })).toEqual({
      kind: "verification",
      message: "Bot verification failed",
    });
    expect(classifySubmitFailure(400, { message: "Please upload at least one image" })).toEqual({
      kind: "error",
      message: "Please upload at least one image",
    });
    expect(classifySubmitFailure(500, "oops")).toEqual({
      kind: "error",
      message: "Something went wrong. Please try again.",
    });
    expect(classifySubmitFailure(403, { code: "UPGRADE_REQUIRED", message: "Free plan" }).kind).toBe(
      "upgrade",
    );
  });

  it("names downloads {prefix}_{yyyymmdd_hhmmss}_{index}.png", () => {
    expect(downloadFileName("pixel-illustration", 2, new Date(2026, 0, 5, 7, 8, 9))).toBe(
      "pixel-illustration_20260105_070809_2.png",
    );
  });
});

describe("task client: following a task", () => {
  const answers = (list: unknown[]) => {
    let i = 0;
    const calls: string[] = [];
    const f = (async (url: string, init?: RequestInit) => {
      calls.push(`${url} ${init?.body}`);
      const body = list[Math.min(i++, list.length - 1)];
      return new Response(JSON.stringify(body), { status: 200 });
    }) as unknown as typeof fetch;
    return { f, calls };
  };

  it("polls taskResult with the task id until success", async () => {
    const { f, calls } = answers([{ code: 0 }, { code: 0 }, { code: 1, data: { imageUrl: "/img" } }]);
    const state = await followTask("t1", { base: "/api/img/nano-banana", fetch: f, intervalMs: 1 });
    expect(state).toEqual({ kind: "success", imageUrl: "/img" });
    expect(calls).toHaveLength(3);
    expect(calls[0]).toBe('/api/img/nano-banana/taskResult {"taskId":"t1"}');
  });

  it("gives up after maxAttempts with the timeout message", async () => {
    const { f, calls } = answers([{ code: 0 }]);
    const state = await followTask("t1", { base: "/b", fetch: f, intervalMs: 1, maxAttempts: 60 });
    expect(state).toEqual({ kind: "failed", reason: "Generation timeout. Please try again." });
    expect(calls).toHaveLength(60);
  });

  it("uses server-sent events when available, and falls back to polling when they drop", async () => {
    const ok = new FakeSource();
    const viaSse = followTask("t1", {
      base: "/b",
      eventSource: () => ok as unknown as EventSource,
      fetch: answers([]).f,
    });
    await tick();
    ok.dispatchEvent(new MessageEvent("task", { data: JSON.stringify({ code: 0 }) }));
    ok.dispatchEvent(new MessageEvent("task", { data: JSON.stringify({ code: 2, failedReason: "nope" }) }));
    expect(await viaSse).toEqual({ kind: "failed", reason: "nope" });
    expect(ok.closed).toBe(true);

    const broken = new FakeSource();
    const { f, calls } = answers([{ code: 1, data: { imageUrl: "/x" } }]);
    const fallback = followTask("t2", {
      base: "/b",
      eventSource: () => broken as unknown as EventSource,
      fetch: f,
      intervalMs: 1,
    });
    await tick();
    broken.onerror?.();
    expect(await fallback).toEqual({ kind: "success", imageUrl: "/x" });
    expect(calls).toHaveLength(1);
  });

  it("reads a pending answer's progress and reports it while polling", async () => {
    expect(readTaskAnswer({ code: 0, progress: { value: 3, max: 8 }, etaSeconds: 12.4 })).toEqual({
      kind: "pending",
      progress: { value: 3, max: 8, etaSeconds: 12 },
    });
    expect(readTaskAnswer({ code: 0, progress: { value: 0, max: 1, queuePosition: 2 } })).toEqual({
      kind: "pending",
      progress: { value: 0, max: 1, queuePosition: 2 },
    });
    // Nonsense is ignored rather than shown.
    expect(readTaskAnswer({ code: 0, progress: { value: 9, max: 4 }, etaSeconds: -3 })).toEqual({
      kind: "pending",
    });

    const answers = [
      { code: 0, progress: { value: 1, max: 4 } },
      { code: 0, progress: { value: 3, max: 4 }, etaSeconds: 2 },
      { code: 1, data: { imageUrl: "/x.png" } },
    ];
    const seen: unknown[] = [];
    const f = (async () =>
      new Response(JSON.stringify(answers.shift()), { status: 200 })) as unknown as typeof fetch;
    const state = await followTask("t1", {
      base: "/b",
      fetch: f,
      intervalMs: 1,
      onProgress: (p) => seen.push(p),
    });
    expect(state).toEqual({ kind: "success", imageUrl: "/x.png" });
    expect(seen).toEqual([
      { value: 1, max: 4 },
      { value: 3, max: 4, etaSeconds: 2 },
    ]);
  });
});

describe("task client: one stream per tab", () => {
  const polls = () => {
    const asked: string[] = [];
    const f = (async (_url: string, init?: RequestInit) => {
      const { taskId } = JSON.parse(String(init?.body)) as { taskId: string };
      asked.push(taskId);
      return new Response(JSON.stringify({ code: 1, data: { imageUrl: `/img/${taskId}` } }), { status: 200 });
    }) as unknown as typeof fetch;
    return { f, asked };
  };
  const setup = () => {
    const opened: FakeSource[] = [];
    const hub = new TaskStreamHub("/api/img/nano-banana");
    const { f, asked } = polls();
    const follow = (taskId: string, onProgress?: (p: unknown) => void) =>
      followTask(taskId, {
        base: "/api/img/nano-banana",
        hub,
        fetch: f,
        intervalMs: 1,
        onProgress,
        eventSource: (url) => {
          const s = new FakeSource(url);
          opened.push(s);
          return s as unknown as EventSource;
        },
      });
    return { opened, hub, asked, follow };
  };

  it("follows a batch of ten tasks over one stream, each event routed by its taskId", async () => {
    const { opened, asked, follow } = setup();
    const ids = Array.from({ length: 10 }, (_, i) => `task-${i}`);
    const progress: Array<[string, unknown]> = [];
    const all = Promise.all(ids.map((id) => follow(id, (p) => progress.push([id, p]))));
    await tick();
    expect(opened).toHaveLength(1);
    expect(opened[0]!.url).toBe(`/api/img/nano-banana/taskEvents?taskIds=${ids.join(",")}`);

    opened[0]!.send({ taskId: "task-3", code: 0, progress: { value: 1, max: 2 } });
    for (const [i, id] of ids.entries()) {
      expect(opened[0]!.closed).toBe(false);
      opened[0]!.send(
        i === 7
          ? { taskId: id, code: 2, failedReason: "nope" }
          : { taskId: id, code: 1, data: { imageUrl: `/i/${id}` } },
      );
    }
    const states = await all;
    expect(states[0]).toEqual({ kind: "success", imageUrl: "/i/task-0" });
    expect(states[7]).toEqual({ kind: "failed", reason: "nope" });
    expect(states.filter((s) => s.kind === "success")).toHaveLength(9);
    expect(progress).toEqual([["task-3", { value: 1, max: 2 }]]);
    expect(opened[0]!.closed).toBe(true);
    expect(opened).toHaveLength(1);
    expect(asked).toEqual([]); // no polling
  });

  it("uses the spec's ?taskId= form for a single task", async () => {
    const { opened, follow } = setup();
    const one = follow("solo");
    await tick();
    expect(opened.map((s) => s.url)).toEqual(["/api/img/nano-banana/taskEvents?taskId=solo"]);
    opened[0]!.send({ code: 1, data: { imageUrl: "/x" } }); // the spec's answer names no task
    expect(await one).toEqual({ kind: "success", imageUrl: "/x" });
  });

  it("reopens one stream with every pending task when a new batch starts", async () => {
    const { opened, hub, follow } = setup();
    const first = [follow("a"), follow("b")];
    await tick();
    opened[0]!.send({ taskId: "a", code: 1, data: { imageUrl: "/a" } });
    const second = [follow("c"), follow("d")];
    await tick();
    expect(opened).toHaveLength(2);
    expect(opened[0]!.closed).toBe(true);
    expect(opened[1]!.url).toBe("/api/img/nano-banana/taskEvents?taskIds=b,c,d");
    expect(hub.streaming).toEqual(["b", "c", "d"]);
    // A late event on the closed stream is ignored.
    opened[0]!.send({ taskId: "b", code: 2, failedReason: "stale" });
    for (const id of ["b", "c", "d"]) opened[1]!.send({ taskId: id, code: 1, data: { imageUrl: `/${id}` } });
    expect(await Promise.all([...first, ...second])).toEqual(
      ["a", "b", "c", "d"].map((id) => ({ kind: "success", imageUrl: `/${id}` })),
    );
    expect(opened[1]!.closed).toBe(true);
    expect(hub.streaming).toEqual([]);
  });

  it("falls back to polling for every task of a stream that is refused (429 past the cap) or drops", async () => {
    const { opened, asked, follow } = setup();
    const all = Promise.all(["p", "q", "r"].map((id) => follow(id)));
    await tick();
    opened[0]!.send({ taskId: "p", code: 1, data: { imageUrl: "/p-sse" } });
    opened[0]!.onerror?.();
    expect(opened[0]!.closed).toBe(true);
    expect(await all).toEqual([
      { kind: "success", imageUrl: "/p-sse" },
      { kind: "success", imageUrl: "/img/q" },
      { kind: "success", imageUrl: "/img/r" },
    ]);
    expect(asked.sort()).toEqual(["q", "r"]);
    expect(opened).toHaveLength(1);
  });
});
