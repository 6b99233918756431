import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import type { ProviderLimits } from "@/core/ports/provider-limits";
import { redisLimits } from "@/adapters/provider-limits/redis";
import { memoryLimits } from "@/engine/providers/spend-cap";

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const connections: Redis[] = [];
afterAll(async () => {
  for (const c of connections) await c.quit().catch(() => undefined);
});

/**
 * Two "processes" over the same limits: with Redis, two connections and two adapters on one
 * prefix (what two workers of a deployment are); in memory, the same object (one process).
 */
type Pair = (now: () => number) => [ProviderLimits, ProviderLimits];
const kinds: Array<[string, Pair]> = [
  [
    "memory (one process)",
    (now) => {
      // One process holds one ledger and one breaker per provider (the router makes them once).
      const inner = memoryLimits(now);
      let ledger: ReturnType<ProviderLimits["spend"]> | undefined;
      const breakers = new Map<string, ReturnType<ProviderLimits["breaker"]>>();
      const one: ProviderLimits = {
        spend: (cap) => (ledger ??= inner.spend(cap)),
        breaker: (id, opts) => breakers.get(id) ?? breakers.set(id, inner.breaker(id, opts)).get(id)!,
      };
      return [one, one];
    },
  ],
  [
    "Redis (shared by processes)",
    (now) => {
      const prefix = `test-${randomUUID()}`;
      const make = () => {
        const r = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
        connections.push(r);
        return redisLimits(r, { prefix, reservationTtlMs: 60_000, now });
      };
      return [make(), make()];
    },
  ],
];

describe.each(kinds)("provider limits, %s", (_kind, pair) => {
  it("holds one daily cap across processes: reservations count, releases give room back, successes stay", async () => {
    const now = Date.parse("2026-03-01T12:00:00Z");
    const [a, b] = pair(() => now);
    const capA = a.spend({ fal: 0.1 });
    const capB = b.spend({ fal: 0.1 });
    const r1 = (await capA.tryReserve("fal", 0.04))!;
    const r2 = (await capB.tryReserve("fal", 0.04))!;
    expect(r1 && r2).toBeTruthy();
    // 0.08 reserved between them: a third 0.04 passes the cap in either process.
    expect(await capA.tryReserve("fal", 0.04)).toBeNull();
    expect(await capB.tryReserve("fal", 0.04)).toBeNull();
    await r2.release(); // a failed render gives its room back
    await r1.commit();
    await r1.commit(); // settling twice counts once
    expect(await capB.spentToday("fal")).toBeCloseTo(0.04);
    expect(await capB.tryReserve("fal", 0.06)).not.toBeNull();
    expect(await capA.tryReserve("fal", 0.01)).toBeNull();
    // A provider without a cap is never refused.
    expect(await capA.tryReserve("gemini", 1000)).not.toBeNull();
  });

  it("lets three 0.1 images fit a 0.3 cap and starts each UTC day from zero", async () => {
    let now = Date.parse("2026-03-01T23:59:00Z");
    const [a, b] = pair(() => now);
    const cap = a.spend({ fal: 0.3 });
    for (let i = 0; i < 3; i++) await (await cap.tryReserve("fal", 0.1))!.commit();
    expect(await b.spend({ fal: 0.3 }).tryReserve("fal", 0.1)).toBeNull();
    now = Date.parse("2026-03-02T00:00:01Z");
    expect(await b.spend({ fal: 0.3 }).spentToday("fal")).toBe(0);
    expect(await cap.tryReserve("fal", 0.3)).not.toBeNull();
  });

  it("starts from today's stored images without counting them once per process", async () => {
    const now = Date.parse("2026-03-01T08:00:00Z");
    const [a, b] = pair(() => now);
    // Every process reads the same stored images at start-up.
    await a.spend({ fal: 0.12 }).atLeast("fal", 0.078);
    await b.spend({ fal: 0.12 }).atLeast("fal", 0.078);
    const cap = b.spend({ fal: 0.12 });
    expect(await cap.spentToday("fal")).toBeCloseTo(0.078);
    expect(await cap.tryReserve("fal", 0.08)).toBeNull();
    expect(await cap.tryReserve("fal", 0.039)).not.toBeNull();
  });

  it("opens a provider's breaker for every process, and lets exactly one trial through after the cool-down", async () => {
    let now = 1_000_000;
    const [a, b] = pair(() => now);
    const opts = { threshold: 2, cooldownMs: 30_000 };
    const ba = a.breaker("fal", opts);
    const bb = b.breaker("fal", opts);
    await ba.onFailure((await ba.tryPass())!);
    expect(await bb.state()).toBe("closed");
    await bb.onFailure((await bb.tryPass())!); // the second failure, in the other process
    expect(await ba.state()).toBe("open");
    expect(await ba.tryPass()).toBeNull();
    expect(await bb.tryPass()).toBeNull();
    now += 30_000;
    expect(await bb.state()).toBe("half-open");
    const trial = (await ba.tryPass())!;
    expect(trial).toEqual({ trial: true });
    expect(await bb.tryPass()).toBeNull(); // one trial at a time, across processes
    await ba.onFailure(trial); // the trial failed: open for another cool-down
    expect(await bb.state()).toBe("open");
    now += 30_000;
    const next = (await bb.tryPass())!;
    expect(next.trial).toBe(true);
    await bb.onSuccess(next);
    expect(await ba.state()).toBe("closed");
    expect(await ba.tryPass()).toEqual({ trial: false });
  });

  it("frees the trial when it ends without a verdict (the task's own deadline)", async () => {
    let now = 0;
    const [a, b] = pair(() => now);
    const opts = { threshold: 1, cooldownMs: 100 };
    const ba = a.breaker("gemini", opts);
    await ba.onFailure((await ba.tryPass())!);
    now = 100;
    const trial = (await ba.tryPass())!;
    await ba.onNeutral(trial);
    expect(await b.breaker("gemini", opts).tryPass()).toEqual({ trial: true });
  });
});
