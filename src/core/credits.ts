import { and, desc, eq, gte, like, sql } from "drizzle-orm";
import type { Db } from "./db";
import { checkoutSession, creditEntry, subscription, task, userBalance } from "./schema";

/**
 * The credit ledger. Every movement is an append-only entry with a unique idempotency
 * key, so retries and duplicate deliveries apply once. The balance row is a cache of the
 * entries' sum, changed only in the same transaction as an entry; a CHECK keeps it >= 0.
 */

/** A transaction or the database: ledger functions compose inside callers' transactions. */
type Tx = Pick<Db, "insert" | "update" | "select" | "execute">;

export type CreditKind = "grant" | "charge" | "refund" | "purchase" | "adjustment";

/**
 * What an entry was for, as the account page names it (in the reader's language): read from
 * its idempotency key, which each writer of the ledger gives a fixed prefix.
 */
export type LedgerSource = "welcome" | "generation" | "refund" | "pack" | "subscription" | "other";

const SOURCE_BY_KEY_PREFIX: Record<string, LedgerSource> = {
  signup: "welcome",
  charge: "generation",
  refund: "refund",
  purchase: "pack",
  "plan-credits": "subscription",
};

export interface LedgerEntry {
  id: number;
  amount: number;
  kind: string;
  taskId: string | null;
  /** The writer's English note (kept for operators; the page shows `source` and ids instead). */
  note: string | null;
  createdAt: Date;
  source: LedgerSource;
  /** The effect a charge or refund paid for (the task's). */
  effectId: string | null;
  /** The pack bought, or the plan whose monthly credits these are, when known. */
  productId: string | null;
}

async function ensureBalanceRow(tx: Tx, userId: string): Promise<void> {
  await tx.insert(userBalance).values({ userId, balance: 0 }).onConflictDoNothing();
}

/**
 * Adds credits once per idempotency key. Returns true when applied now, false when the key
 * had already been applied. Must run inside a transaction when combined with other writes.
 */
export async function addCreditsTx(
  tx: Tx,
  entry: { userId: string; amount: number; kind: CreditKind; key: string; taskId?: string; note?: string },
): Promise<boolean> {
  if (!Number.isInteger(entry.amount) || entry.amount <= 0) {
    throw new Error(`addCredits takes a positive whole amount, got ${entry.amount}`);
  }
  const inserted = await tx
    .insert(creditEntry)
    .values({
      userId: entry.userId,
      amount: entry.amount,
      kind: entry.kind,
      taskId: entry.taskId ?? null,
      idempotencyKey: entry.key,
      note: entry.note ?? null,
    })
    .onConflictDoNothing({ target: creditEntry.idempotencyKey })
    .returning({ id: creditEntry.id });
  if (inserted.length === 0) return false;
  await ensureBalanceRow(tx, entry.userId);
  await tx
    .update(userBalance)
    .set({ balance: sql`${userBalance.balance} + ${entry.amount}`, updatedAt: new Date() })
    .where(eq(userBalance.userId, entry.userId));
  return true;
}

/** addCreditsTx in its own transaction. */
export function addCredits(db: Db, entry: Parameters<typeof addCreditsTx>[1]): Promise<boolean> {
  return db.transaction((tx) => addCreditsTx(tx, entry));
}

/**
 * Spends credits if the balance covers them: a single conditional UPDATE, so concurrent
 * spends can never take the balance below zero. Returns false (and changes nothing) when
 * the balance is too small. Call inside the transaction that creates what is paid for.
 */
export async function spendCreditsTx(
  tx: Tx,
  spend: { userId: string; amount: number; key: string; taskId?: string; note?: string },
): Promise<boolean> {
  if (!Number.isInteger(spend.amount) || spend.amount <= 0) {
    throw new Error(`spendCredits takes a positive whole amount, got ${spend.amount}`);
  }
  const updated = await tx
    .update(userBalance)
    .set({ balance: sql`${userBalance.balance} - ${spend.amount}`, updatedAt: new Date() })
    .where(and(eq(userBalance.userId, spend.userId), gte(userBalance.balance, spend.amount)))
    .returning({ balance: userBalance.balance });
  if (updated.length === 0) return false;
  // A duplicate key throws (unique violation) and rolls the whole transaction back.
  await tx.insert(creditEntry).values({
    userId: spend.userId,
    amount: -spend.amount,
    kind: "charge",
    taskId: spend.taskId ?? null,
    idempotencyKey: spend.key,
    note: spend.note ?? null,
  });
  return true;
}

/** The cached balance (0 for a user with no entries yet). */
export async function getBalance(db: Tx, userId: string): Promise<number> {
  const rows = await db
    .select({ balance: userBalance.balance })
    .from(userBalance)
    .where(eq(userBalance.userId, userId));
  return rows[0]?.balance ?? 0;
}

/** The sum of the ledger's entries: what the cached balance must always equal. */
export async function ledgerSum(db: Tx, userId: string): Promise<number> {
  const rows = await db
    .select({ sum: sql<string>`coalesce(sum(${creditEntry.amount}), 0)` })
    .from(creditEntry)
    .where(eq(creditEntry.userId, userId));
  return Number(rows[0]?.sum ?? 0);
}

/**
 * Newest entries first, for the account page, each with what it was for: the effect of a
 * charge or refund (its task), the pack of a purchase (its checkout), the plan of monthly
 * credits (the user's subscription).
 */
export async function listLedger(db: Db, userId: string, limit = 100): Promise<LedgerEntry[]> {
  const rows = await db
    .select({
      id: creditEntry.id,
      amount: creditEntry.amount,
      kind: creditEntry.kind,
      taskId: creditEntry.taskId,
      note: creditEntry.note,
      createdAt: creditEntry.createdAt,
      key: creditEntry.idempotencyKey,
      effectId: task.effectId,
      packId: checkoutSession.productId,
      planId: subscription.planId,
    })
    .from(creditEntry)
    .leftJoin(task, and(eq(task.id, creditEntry.taskId), eq(task.userId, creditEntry.userId)))
    .leftJoin(
      checkoutSession,
      and(
        eq(creditEntry.idempotencyKey, sql`'purchase:' || ${checkoutSession.id}`),
        eq(checkoutSession.userId, creditEntry.userId),
      ),
    )
    .leftJoin(
      subscription,
      and(eq(subscription.userId, creditEntry.userId), like(creditEntry.idempotencyKey, "plan-credits:%")),
    )
    .where(eq(creditEntry.userId, userId))
    .orderBy(desc(creditEntry.createdAt), desc(creditEntry.id))
    .limit(limit);
  return rows.map(({ key, packId, planId, effectId, ...entry }) => {
    const source = SOURCE_BY_KEY_PREFIX[key.split(":")[0]!] ?? "other";
    return {
      ...entry,
      source,
      effectId: source === "generation" || source === "refund" ? effectId : null,
      productId: source === "pack" ? packId : source === "subscription" ? planId : null,
    };
  });
}

/** The starting grant of a new account; safe to call any number of times. */
export function grantSignupCredits(db: Db, userId: string, amount: number): Promise<boolean> {
  if (amount <= 0) return Promise.resolve(false);
  return addCredits(db, {
    userId,
    amount,
    kind: "grant",
    key: `signup:${userId}`,
    note: "Welcome credits",
  });
}
