import { and, desc, eq, gte, sql } from "drizzle-orm";
import type { Db } from "./db";
import { creditEntry, userBalance } from "./schema";

/**
 * The credit ledger. Every movement is an append-only entry with a unique idempotency
 * key, so retries and duplicate deliveries apply once. The balance row is a cache of the
 * entries' sum, changed only in the same transaction as an entry; a CHECK keeps it >= 0.
 */

/** A transaction or the database: ledger functions compose inside callers' transactions. */
type Tx = Pick<Db, "insert" | "update" | "select" | "execute">;

export type CreditKind = "grant" | "charge" | "refund" | "purchase" | "adjustment";

export interface LedgerEntry {
  id: number;
  amount: number;
  kind: string;
  taskId: string | null;
  note: string | null;
  createdAt: Date;
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

/** Newest entries first, for the account page. */
export async function listLedger(db: Db, userId: string, limit = 100): Promise<LedgerEntry[]> {
  return db
    .select({
      id: creditEntry.id,
      amount: creditEntry.amount,
      kind: creditEntry.kind,
      taskId: creditEntry.taskId,
      note: creditEntry.note,
      createdAt: creditEntry.createdAt,
    })
    .from(creditEntry)
    .where(eq(creditEntry.userId, userId))
    .orderBy(desc(creditEntry.createdAt), desc(creditEntry.id))
    .limit(limit);
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
