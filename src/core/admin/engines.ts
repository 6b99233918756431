import { and, eq, gte, inArray, sql } from "drizzle-orm";
import type { Db } from "../db";
import type { BreakerState } from "../ports/provider-limits";
import { image, task } from "../schema";
import { errorRate, failureCounts } from "./failures";

/**
 * Each configured engine's health for the console, computed from the database (task and image
 * rows), never from one process's counters, so every web process of a scale-out deployment
 * shows the same figures: today's spend (images stored today, UTC, times their cost) against
 * the daily cap, and over the last hour the error rate and the median render time of the
 * tasks it rendered or failed. The error rate counts the engine's own errors only: a task
 * that failed because the user's input was refused by the rules (no face, a provider's safety
 * filter...) is a refused input, shown apart, and neither it nor one ended by the server
 * (upload gone, account suspended) is in the rate's denominator (failures.ts, ADR 018).
 * The breaker state comes from the provider limits, shared through Redis in scale-out.
 */

export interface EngineInfo {
  id: string;
  selfHosted: boolean;
  cost: { v1: number; v2: number };
  dailyCap: number | null;
  /** Null for the local engine (no breaker) or when no router runs. */
  breaker: () => Promise<BreakerState | null>;
}

export interface EngineStats {
  id: string;
  selfHosted: boolean;
  breaker: BreakerState | null;
  imagesToday: number;
  spentToday: number;
  dailyCap: number | null;
  lastHour: {
    /** Tasks it rendered or failed. */
    finished: number;
    /** Engine errors (not refused inputs). */
    failed: number;
    /** Failed because the input was refused by the rules. */
    refused: number;
    /** The tasks the error rate is taken over: finished minus refused and server-ended ones. */
    judged: number;
    /** failed / judged; null when nothing was judged. */
    errorRate: number | null;
    medianSeconds: number | null;
  };
}

export async function engineStats(db: Db, engines: EngineInfo[], now = new Date()): Promise<EngineStats[]> {
  if (!engines.length) return [];
  const ids = engines.map((e) => e.id);
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const hourAgo = new Date(now.getTime() - 3600_000);
  const provider = sql<string>`coalesce(${task.provider}, ${image.provider})`;
  const counts = failureCounts(task.state, task.failedCode);
  const [today, hour] = await Promise.all([
    db
      .select({ provider: image.provider, route: task.route, n: sql<number>`count(*)::int` })
      .from(image)
      .innerJoin(task, eq(task.id, image.taskId))
      .where(and(gte(image.createdAt, dayStart), inArray(image.provider, ids)))
      .groupBy(image.provider, task.route),
    db
      .select({
        provider,
        finished: sql<number>`count(*)::int`,
        failed: counts.failed,
        refused: counts.refused,
        excluded: counts.excluded,
        median: sql<
          number | null
        >`percentile_cont(0.5) within group (order by extract(epoch from (${task.finishedAt} - ${task.startedAt}))) filter (where ${task.state} = 'succeeded' and ${task.startedAt} is not null)`,
      })
      .from(task)
      .leftJoin(image, eq(image.taskId, task.id))
      .where(and(gte(task.finishedAt, hourAgo), sql`${provider} in ${ids}`))
      .groupBy(provider),
  ]);
  return Promise.all(
    engines.map(async (e) => {
      const rows = today.filter((r) => r.provider === e.id);
      const imagesToday = rows.reduce((n, r) => n + r.n, 0);
      const spentToday = rows.reduce((s, r) => s + r.n * (r.route === "v2" ? e.cost.v2 : e.cost.v1), 0);
      const h = hour.find((r) => r.provider === e.id);
      const finished = h?.finished ?? 0;
      const failed = h?.failed ?? 0;
      const excluded = h?.excluded ?? 0;
      return {
        id: e.id,
        selfHosted: e.selfHosted,
        breaker: await e.breaker().catch(() => null),
        imagesToday,
        spentToday: Math.round(spentToday * 10_000) / 10_000,
        dailyCap: e.dailyCap,
        lastHour: {
          finished,
          failed,
          refused: h?.refused ?? 0,
          judged: finished - excluded,
          errorRate: errorRate(finished, failed, excluded),
          medianSeconds: h?.median == null ? null : Math.round(Number(h.median) * 100) / 100,
        },
      };
    }),
  );
}
