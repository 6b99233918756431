import { describe, expect, it } from "vitest";
import {
  ClientMessages,
  classifySubmitFailure,
  downloadFileName,
  extractTaskIds,
  followTask,
  readTaskAnswer,
} from "./task-client";

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
    class FakeSource extends EventTarget {
      onerror: (() => void) | null = null;
      closed = false;
      close() {
        this.closed = true;
      }
    }
    const ok = new FakeSource();
    const viaSse = followTask("t1", {
      base: "/b",
      eventSource: () => ok as unknown as EventSource,
      fetch: answers([]).f,
    });
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
