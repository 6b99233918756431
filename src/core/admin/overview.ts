import { and, eq, gte, sql } from "drizzle-orm";
import { z } from "zod";
import type { Pricing } from "@/config/pricing";
import type { Db } from "../db";
import { checkoutSession, creditEntry, task, user } from "../schema";

/**
 * The console's overview, per UTC day over the last `days`: sign-ups, generations, revenue
 * (test checkout and Stripe apart, from completed checkouts at the configured prices),
 * credits granted (welcome, purchases, plans, refunds and grants by hand) against credits
 * spent, and the failure rate per effect over the same window.
 */

export const overviewQuerySchema = z
  .object({ days: z.coerce.number().int().min(1).max(90).default(30) })
  .strict();

export interface DayFigures {
  day: string;
  signups: number;
  generations: number;
  failed: number;
  revenueTest: number;
  revenueStripe: number;
  creditsGranted: number;
  creditsSpent: number;
}

export interface Overview {
  currency: string;
  days: DayFigures[];
  effects: Array<{ effectId: string; total: number; failed: number; failureRate: number }>;
}

const dayOf = (col: unknown) =>
  sql<string>`to_char(date_trunc('day', ${col} at time zone 'UTC'), 'YYYY-MM-DD')`;

export async function overview(db: Db, pricing: Pricing, days: number, now = new Date()): Promise<Overview> {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
  const [signups, tasks, checkouts, credits, effects] = await Promise.all([
    db
      .select({ day: dayOf(user.createdAt), n: sql<number>`count(*)::int` })
      .from(user)
      .where(gte(user.createdAt, start))
      .groupBy(sql`1`),
    db
      .select({
        day: dayOf(task.createdAt),
        n: sql<number>`count(*)::int`,
        failed: sql<number>`count(*) filter (where ${task.state} = 'failed')::int`,
      })
      .from(task)
      .where(gte(task.createdAt, start))
      .groupBy(sql`1`),
    db
      .select({
        day: dayOf(checkoutSession.completedAt),
        provider: checkoutSession.provider,
        productId: checkoutSession.productId,
        n: sql<number>`count(*)::int`,
      })
      .from(checkoutSession)
      .where(and(eq(checkoutSession.status, "completed"), gte(checkoutSession.completedAt, start)))
      .groupBy(sql`1`, checkoutSession.provider, checkoutSession.productId),
    db
      .select({
        day: dayOf(creditEntry.createdAt),
        granted: sql<number>`coalesce(sum(${creditEntry.amount}) filter (where ${creditEntry.amount} > 0), 0)::int`,
        spent: sql<number>`coalesce(-sum(${creditEntry.amount}) filter (where ${creditEntry.amount} < 0), 0)::int`,
      })
      .from(creditEntry)
      .where(gte(creditEntry.createdAt, start))
      .groupBy(sql`1`),
    db
      .select({
        effectId: task.effectId,
        total: sql<number>`count(*)::int`,
        failed: sql<number>`count(*) filter (where ${task.state} = 'failed')::int`,
      })
      .from(task)
      .where(and(gte(task.createdAt, start), sql`${task.state} in ('succeeded','failed')`))
      .groupBy(task.effectId),
  ]);
  const price = new Map<string, number>([
    ...pricing.packs.map((p) => [p.id, p.priceCents] as const),
    ...pricing.plans.map((p) => [p.id, p.priceCents] as const),
  ]);
  const out: DayFigures[] = [];
  for (let i = 0; i < days; i++) {
    const d = new Date(start.getTime() + i * 86_400_000).toISOString().slice(0, 10);
    const t = tasks.find((r) => r.day === d);
    const c = credits.find((r) => r.day === d);
    const revenue = (provider: string) =>
      checkouts
        .filter(
          (r) => r.day === d && (provider === "stripe" ? r.provider === "stripe" : r.provider !== "stripe"),
        )
        .reduce((s, r) => s + r.n * (price.get(r.productId) ?? 0), 0) / 100;
    out.push({
      day: d,
      signups: signups.find((r) => r.day === d)?.n ?? 0,
      generations: t?.n ?? 0,
      failed: t?.failed ?? 0,
      revenueTest: revenue("test"),
      revenueStripe: revenue("stripe"),
      creditsGranted: c?.granted ?? 0,
      creditsSpent: c?.spent ?? 0,
    });
  }
  return {
    currency: pricing.currency,
    days: out,
    effects: effects
      .map((e) => ({ ...e, failureRate: e.total ? e.failed / e.total : 0 }))
      .sort((a, b) => b.failureRate - a.failureRate || b.total - a.total),
  };
}
