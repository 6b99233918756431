import { describe, expect, it } from "vitest";
import { TaskStatusCache, toAnswer } from "./task-status";

const running = { state: "running" as const, imageUrl: null, failedReason: null, failedCode: null };

describe("the pending answer's progress and time left", () => {
  it("counts the typical render time down from the start, never below one second", () => {
    const now = 100_000;
    expect(toAnswer({ ...running, startedAt: now - 4_000 }, { typicalSeconds: 10, now }).etaSeconds).toBe(6);
    expect(toAnswer({ ...running, startedAt: now - 30_000 }, { typicalSeconds: 10, now }).etaSeconds).toBe(1);
    expect(
      toAnswer({ ...running, state: "queued", startedAt: null }, { typicalSeconds: 10, now }).etaSeconds,
    ).toBe(10);
    expect(toAnswer({ ...running, startedAt: now }, { now }).etaSeconds).toBeNull();
  });

  it("extrapolates from the backend's steps when it reports them", () => {
    const now = 100_000;
    const answer = toAnswer(
      { ...running, startedAt: now - 6_000 },
      { typicalSeconds: 60, progress: { value: 3, max: 4 }, now },
    );
    expect(answer.progress).toEqual({ value: 3, max: 4 });
    expect(answer.etaSeconds).toBe(2);
  });

  it("says nothing of progress once the task has ended", () => {
    const done = toAnswer(
      { state: "succeeded", imageUrl: "/api/images/x", failedReason: null, failedCode: null },
      { typicalSeconds: 10, progress: { value: 4, max: 4 } },
    );
    expect(done).toMatchObject({ code: 1, progress: null, etaSeconds: null });
  });

  it("keeps a running task's last progress until it ends", () => {
    const cache = new TaskStatusCache();
    const base = { taskId: "t", userId: "u", imageUrl: null, failedReason: null, failedCode: null };
    cache.apply({ ...base, state: "running", progress: { value: 2, max: 8 } }, 1_000);
    expect(cache.progress("t", 2_000)).toEqual({ value: 2, max: 8 });
    expect(cache.progress("t", 70_000)).toBeNull();
    cache.apply({ ...base, state: "running", progress: { value: 5, max: 8 } }, 3_000);
    cache.apply({ ...base, state: "succeeded", imageUrl: "/api/images/x" }, 4_000);
    expect(cache.progress("t", 4_000)).toBeNull();
  });
});
