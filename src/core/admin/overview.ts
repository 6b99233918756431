import { and, eq, gte, like, notExists, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Pricing } from "@/config/pricing";
import type { Db } from "../db";
import { creditEntry, payment, task, user } from "../schema";
import { errorRate, failureCounts } from "./failures";

/**
 * The console's overview, per UTC day over the last `days`: sign-ups, generations, revenue,
 * credits granted (welcome, purchases, plans, refunds and grants by hand) against credits
 * spent, and the failure rate per effect over the same window.
 *
 * Revenue is the money recorded when each payment was fulfilled (the `payment` table: what
 * Stripe charged, or the test checkout's price at that moment), per provider and currency:
 * changing PRICING_JSON never rewrites it. Purchases fulfilled before amounts were recorded
 * (a ledger purchase with no payment row) are counted as "amount not recorded", never priced
 * from today's table. Failure rates count engine errors only, over the tasks that reached a
 * verdict about the engine; refused inputs are counted apart (failures.ts, ADR 018).
 */

export const overviewQuerySchema = z
  .object({ days: z.coerce.number().int().min(1).max(90).default(30) })
  .strict();

export type RevenueProvider = "test" | "stripe";

export interface Revenue {
  provider: RevenueProvider;
  /** ISO 4217, lower case. */
  currency: string;
  /** In the currency's major unit (dollars, not cents; yen as they are). */
  amount: number;
  payments: number;
}

export interface DayFigures {
  day: string;
  signups: number;
  generations: number;
  /** Engine errors among the day's tasks. */
  failed: number;
  /** The day's tasks refused for their input. */
  refused: number;
  /** Per provider and currency; only those with a payment that day. */
  revenue: Revenue[];
  creditsGranted: number;
  creditsSpent: number;
}

export interface EffectFailures {
  effectId: string;
  /** Finished tasks (succeeded or failed). */
  total: number;
  /** Engine errors. */
  failed: number;
  /** Refused inputs. */
  refused: number;
  /** The tasks the rate is taken over: total minus refused and server-ended ones. */
  judged: number;
  /** failed / judged; null when nothing was judged. */
  failureRate: number | null;
}

export interface Overview {
  /** The currencies revenue was taken in over the window (the price table's when none), sorted. */
  currencies: string[];
  days: DayFigures[];
  /** The window's revenue per provider and currency. */
  revenue: Revenue[];
  /** Purchases in the window fulfilled before amounts were recorded: not in the revenue. */
  unrecordedPayments: number;
  effects: EffectFailures[];
}

const dayOf = (col: unknown) =>
  sql<string>`to_char(date_trunc('day', ${col} at time zone 'UTC'), 'YYYY-MM-DD')`;

/** Digits of the currency's minor unit (2 for usd, 0 for jpy); 2 for a code Intl does not know. */
export function minorDigits(currency: string): number {
  try {
    return (
      new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ??
      2
    );
  } catch {
    return 2;
  }
}

const toMajor = (minor: number, currency: string) => minor / 10 ** minorDigits(currency);

const providerOf = (p: string): RevenueProvider => (p === "stripe" ? "stripe" : "test");

export async function overview(db: Db, pricing: Pricing, days: number, now = new Date()): Promise<Overview> {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
  const counts = failureCounts(task.state, task.failedCode);
  const [signups, tasks, payments, unrecorded, credits, effects] = await Promise.all([
    db
      .select({ day: dayOf(user.createdAt), n: sql<number>`count(*)::int` })
      .from(user)
      .where(gte(user.createdAt, start))
      .groupBy(sql`1`),
    db
      .select({
        day: dayOf(task.createdAt),
        n: sql<number>`count(*)::int`,
        failed: counts.failed,
        refused: counts.refused,
      })
      .from(task)
      .where(gte(task.createdAt, start))
      .groupBy(sql`1`),
    db
      .select({
        day: dayOf(payment.paidAt),
        provider: payment.provider,
        currency: payment.currency,
        minor: sql<number>`sum(${payment.amount})::bigint`,
        n: sql<number>`count(*)::int`,
      })
      .from(payment)
      .where(gte(payment.paidAt, start))
      .groupBy(sql`1`, payment.provider, payment.currency),
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(creditEntry)
      .where(
        and(
          eq(creditEntry.kind, "purchase"),
          gte(creditEntry.createdAt, start),
          or(
            like(creditEntry.idempotencyKey, "purchase:%"),
            like(creditEntry.idempotencyKey, "plan-credits:%"),
          ),
          notExists(
            db
              .select({ one: sql`1` })
              .from(payment)
              .where(eq(payment.id, creditEntry.idempotencyKey)),
          ),
        ),
      ),
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
        failed: counts.failed,
        refused: counts.refused,
        excluded: counts.excluded,
      })
      .from(task)
      .where(and(gte(task.createdAt, start), sql`${task.state} in ('succeeded','failed')`))
      .groupBy(task.effectId),
  ]);

  // Sums stay in minor units (exact integers) until the end.
  const sumRevenue = (rows: typeof payments): Revenue[] => {
    const by = new Map<string, { provider: RevenueProvider; currency: string; minor: number; n: number }>();
    for (const r of rows) {
      const provider = providerOf(r.provider);
      const key = `${provider}:${r.currency}`;
      const acc = by.get(key) ?? { provider, currency: r.currency, minor: 0, n: 0 };
      acc.minor += Number(r.minor);
      acc.n += r.n;
      by.set(key, acc);
    }
    return [...by.values()]
      .sort((a, b) => a.currency.localeCompare(b.currency) || a.provider.localeCompare(b.provider))
      .map((r) => ({
        provider: r.provider,
        currency: r.currency,
        amount: toMajor(r.minor, r.currency),
        payments: r.n,
      }));
  };

  const out: DayFigures[] = [];
  for (let i = 0; i < days; i++) {
    const d = new Date(start.getTime() + i * 86_400_000).toISOString().slice(0, 10);
    const t = tasks.find((r) => r.day === d);
    const c = credits.find((r) => r.day === d);
    out.push({
      day: d,
      signups: signups.find((r) => r.day === d)?.n ?? 0,
      generations: t?.n ?? 0,
      failed: t?.failed ?? 0,
      refused: t?.refused ?? 0,
      revenue: sumRevenue(payments.filter((r) => r.day === d)),
      creditsGranted: c?.granted ?? 0,
      creditsSpent: c?.spent ?? 0,
    });
  }
  const revenue = sumRevenue(payments);
  const currencies = [...new Set(revenue.map((r) => r.currency))].sort();
  return {
    currencies: currencies.length ? currencies : [pricing.currency.toLowerCase()],
    days: out,
    revenue,
    unrecordedPayments: unrecorded[0]?.n ?? 0,
    effects: effects
      .map((e) => ({
        effectId: e.effectId,
        total: e.total,
        failed: e.failed,
        refused: e.refused,
        judged: e.total - e.excluded,
        failureRate: errorRate(e.total, e.failed, e.excluded),
      }))
      .sort(
        (a, b) =>
          (b.failureRate ?? -1) - (a.failureRate ?? -1) ||
          b.total - a.total ||
          a.effectId.localeCompare(b.effectId),
      ),
  };
}
