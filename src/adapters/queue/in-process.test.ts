import { describe, expect, it } from "vitest";
import { InProcessQueue } from "./in-process";

describe("in-process queue", () => {
  it("runs every job once, at most `concurrency` at a time, ignoring a duplicate enqueue", async () => {
    const q = new InProcessQueue(2);
    let running = 0;
    let peak = 0;
    const seen: string[] = [];
    q.start(async (id) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 10));
      seen.push(id);
      running--;
    });
    for (const id of ["a", "b", "c", "d", "a"]) await q.enqueue(id);
    await q.idle();
    expect(seen.sort()).toEqual(["a", "b", "c", "d"]);
    expect(peak).toBe(2);
    await q.close();
  });

  it("keeps going after a job throws", async () => {
    const errors: string[] = [];
    const q = new InProcessQueue(1, (id) => errors.push(id));
    const done: string[] = [];
    q.start(async (id) => {
      if (id === "bad") throw new Error("boom");
      done.push(id);
    });
    await q.enqueue("bad");
    await q.enqueue("good");
    await q.idle();
    expect(errors).toEqual(["bad"]);
    expect(done).toEqual(["good"]);
  });
});
