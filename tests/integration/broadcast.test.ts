import { afterAll, describe, expect, it } from "vitest";
import { RedisBroadcast } from "@/adapters/broadcast";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/**
 * The channel behind session revocations and runtime settings: when `publish` returns, the
 * message has come back through Redis, so a process's own listeners have it (sign-out, then the
 * next request, sees the session gone) and the other processes have it on their sockets.
 */
describe("Redis broadcast", () => {
  const channel = `photofx-broadcast-${process.pid}-${Date.now()}`;
  const codec = { encode: (m: { n: number }) => JSON.stringify(m), decode: (raw: string) => JSON.parse(raw) };
  const a = new RedisBroadcast<{ n: number }>(REDIS_URL, channel, codec);
  const b = new RedisBroadcast<{ n: number }>(REDIS_URL, channel, codec);
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it("publish resolves only after this process's listeners heard the message; others hear it too", async () => {
    await Promise.all([a.ready(), b.ready()]);
    const heardByA: number[] = [];
    const heardByB: number[] = [];
    a.subscribe((m) => heardByA.push(m.n));
    b.subscribe((m) => heardByB.push(m.n));
    for (let n = 1; n <= 20; n++) {
      await a.publish({ n });
      expect(heardByA.at(-1)).toBe(n);
    }
    // Two identical messages published at once each get their echo.
    await Promise.all([a.publish({ n: 21 }), a.publish({ n: 21 })]);
    expect(heardByA.filter((n) => n === 21)).toHaveLength(2);
    await expect.poll(() => heardByB.length).toBe(22);
    expect(heardByB).toEqual(heardByA);
  });
});
