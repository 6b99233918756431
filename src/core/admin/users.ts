import { and, count, desc, eq, gte, ilike, inArray, max, or, sql } from "drizzle-orm";
import { z } from "zod";
import { getEffect } from "../catalogue";
import { addCreditsTx, getBalance, listLedger, type LedgerEntry } from "../credits";
import type { Db } from "../db";
import { AppError } from "../errors";
import { releaseOriginals } from "../originals";
import type { SessionRevocation } from "../ports/session-revocations";
import type { ObjectStorage } from "../ports/storage";
import type { TaskEventBus } from "../ports/task-events";
import { creditEntry, session, subscription, task, taskInput, upload, user, userBalance } from "../schema";
import { writeAuditTx } from "./audit";
import type { Actor } from "./roles";
import { REASON_MAX, REASON_MIN } from "./reason";

/**
 * The console's users: search, one account's whole picture, credits granted or removed by
 * hand (with a reason, idempotent), suspension.
 */

export const userSearchSchema = z
  .object({
    q: z.string().trim().max(320).default(""),
    limit: z.coerce.number().int().min(1).max(50).default(20),
  })
  .strict();

export interface UserSummary {
  id: string;
  email: string;
  name: string;
  role: string;
  emailVerified: boolean;
  suspended: boolean;
  createdAt: Date;
  balance: number;
}

/** By exact id, or e-mail containing the text (case-insensitive); newest accounts first. */
export async function searchUsers(db: Db, q: z.output<typeof userSearchSchema>): Promise<UserSummary[]> {
  const text = q.q.replace(/[\\%_]/g, (c) => `\\${c}`);
  const rows = await db
    .select({
      id: user.id,
      email: user.email,
      name: user.name,
      role: user.role,
      emailVerified: user.emailVerified,
      suspendedAt: user.suspendedAt,
      createdAt: user.createdAt,
      balance: sql<number>`coalesce(${userBalance.balance}, 0)`,
    })
    .from(user)
    .leftJoin(userBalance, eq(userBalance.userId, user.id))
    .where(q.q ? or(eq(user.id, q.q), ilike(user.email, `%${text}%`)) : undefined)
    .orderBy(desc(user.createdAt))
    .limit(q.limit);
  return rows.map(({ suspendedAt, ...r }) => ({
    ...r,
    balance: Number(r.balance),
    suspended: !!suspendedAt,
  }));
}

export interface UserDetail extends UserSummary {
  suspendedAt: Date | null;
  plan: { planId: string; status: string; periodEnd: Date; provider: string } | null;
  ledger: LedgerEntry[];
  tasks: Array<{ id: string; effectId: string; state: string; credits: number; createdAt: Date }>;
  taskCounts: Record<string, number>;
  uploads: number;
  /** Latest of: a session's last refresh, a task, an upload. */
  lastActive: Date | null;
}

export async function userDetail(db: Db, userId: string): Promise<UserDetail | null> {
  const [row] = await db.select().from(user).where(eq(user.id, userId));
  if (!row) return null;
  const [balance, ledger, tasks, counts, uploads, sessions, [sub]] = await Promise.all([
    getBalance(db, userId),
    listLedger(db, userId, 50),
    db
      .select({
        id: task.id,
        effectId: task.effectId,
        state: task.state,
        credits: task.credits,
        createdAt: task.createdAt,
      })
      .from(task)
      .where(eq(task.userId, userId))
      .orderBy(desc(task.createdAt))
      .limit(20),
    db
      .select({ state: task.state, n: count() })
      .from(task)
      .where(eq(task.userId, userId))
      .groupBy(task.state),
    db
      .select({ n: count(), last: max(upload.createdAt) })
      .from(upload)
      .where(eq(upload.userId, userId)),
    db
      .select({ last: max(session.updatedAt) })
      .from(session)
      .where(eq(session.userId, userId)),
    db.select().from(subscription).where(eq(subscription.userId, userId)),
  ]);
  const lastTask = tasks[0]?.createdAt ?? null;
  const candidates = [sessions[0]?.last, uploads[0]?.last, lastTask].filter((d): d is Date => !!d);
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    emailVerified: row.emailVerified,
    suspended: !!row.suspendedAt,
    suspendedAt: row.suspendedAt,
    createdAt: row.createdAt,
    balance,
    plan: sub
      ? { planId: sub.planId, status: sub.status, periodEnd: sub.currentPeriodEnd, provider: sub.provider }
      : null,
    ledger,
    tasks,
    taskCounts: Object.fromEntries(counts.map((c) => [c.state, c.n])),
    uploads: uploads[0]?.n ?? 0,
    lastActive: candidates.length
      ? new Date(Math.max(...candidates.map((d) => new Date(d).getTime())))
      : null,
  };
}

/** The largest grant or removal at once (a typo of a few zeros is refused, not applied). */
export const ADJUST_MAX = 100_000;

export const adjustCreditsSchema = z
  .object({
    /** Positive grants, negative removes. */
    amount: z
      .number()
      .int()
      .min(-ADJUST_MAX)
      .max(ADJUST_MAX)
      .refine((n) => n !== 0, "not zero"),
    reason: z.string().trim().min(REASON_MIN).max(REASON_MAX),
    /** One per form submission: the same key again applies nothing (a double click, a retry). */
    idempotencyKey: z.string().regex(/^[A-Za-z0-9_-]{8,100}$/),
  })
  .strict();

/**
 * Grants or removes credits by hand: a ledger entry of its own kind ("adjustment") whose
 * note is the reason (the user's credit history shows it), under the key
 * `admin:{user}:{idempotencyKey}` so a repeated request applies once; a removal never takes
 * the balance below zero. Audited in the same transaction. `applied: false`: already applied.
 */
export async function adjustCredits(
  db: Db,
  actor: Actor,
  userId: string,
  body: unknown,
): Promise<{ applied: boolean; balance: number }> {
  const parsed = adjustCreditsSchema.safeParse(body);
  if (!parsed.success)
    throw new AppError(
      "VALIDATION",
      `Send { amount: a whole number from -${ADJUST_MAX} to ${ADJUST_MAX}, not 0; reason: ${REASON_MIN} to ${REASON_MAX} characters; idempotencyKey }.`,
    );
  const { amount, reason, idempotencyKey } = parsed.data;
  const key = `admin:${userId}:${idempotencyKey}`;
  return db.transaction(async (tx) => {
    const [target] = await tx.select({ id: user.id }).from(user).where(eq(user.id, userId));
    if (!target) throw new AppError("NOT_FOUND", "Not found");
    const before = await getBalance(tx, userId);
    let applied: boolean;
    if (amount > 0) {
      applied = await addCreditsTx(tx, { userId, amount, kind: "adjustment", key, note: reason });
    } else {
      const inserted = await tx
        .insert(creditEntry)
        .values({ userId, amount, kind: "adjustment", idempotencyKey: key, note: reason })
        .onConflictDoNothing({ target: creditEntry.idempotencyKey })
        .returning({ id: creditEntry.id });
      applied = inserted.length > 0;
      if (applied) {
        const updated = await tx
          .update(userBalance)
          .set({ balance: sql`${userBalance.balance} + ${amount}`, updatedAt: new Date() })
          .where(and(eq(userBalance.userId, userId), gte(userBalance.balance, -amount)))
          .returning({ balance: userBalance.balance });
        if (!updated.length)
          throw new AppError(
            "CONFLICT",
            `The balance is ${before}: removing ${-amount} would take it below zero.`,
            { reason: "balanceTooLow", balance: before },
          );
      }
    }
    const balance = await getBalance(tx, userId);
    if (applied)
      await writeAuditTx(tx, {
        actor,
        action: amount > 0 ? "credits.grant" : "credits.remove",
        targetType: "user",
        targetId: userId,
        before: { balance: before },
        after: { balance, amount },
        reason,
      });
    return { applied, balance };
  });
}

export const suspendSchema = z
  .object({ suspended: z.boolean(), reason: z.string().trim().min(REASON_MIN).max(REASON_MAX) })
  .strict();

export const SUSPENDED_REASON = {
  code: "accountSuspended",
  text: "The account was suspended. Your credits have been refunded.",
} as const;

export interface SuspendDeps {
  db: Db;
  storage: ObjectStorage;
  revokeSessions(revocation: SessionRevocation): Promise<void>;
  events?: TaskEventBus;
}

/**
 * Suspends (or restores) an account. Suspending, in one transaction: the flag, every session
 * deleted, queued tasks failed with their refund (`refund:{task}`, the automatic refund's key,
 * so never twice), the audit row; then every process's session cache drops the user's
 * sessions (the revocation broadcast) and open task streams hear of the failed tasks. A task
 * already rendering finishes normally. Sign-in is refused while suspended (src/auth/auth.ts).
 */
export async function setSuspended(
  deps: SuspendDeps,
  actor: Actor,
  userId: string,
  body: unknown,
): Promise<{ suspended: boolean; tasksRefunded: number }> {
  const parsed = suspendSchema.safeParse(body);
  if (!parsed.success)
    throw new AppError(
      "VALIDATION",
      `Send { suspended: true | false, reason: ${REASON_MIN} to ${REASON_MAX} characters }.`,
    );
  const { suspended, reason } = parsed.data;
  if (suspended && userId === actor.id)
    throw new AppError("CONFLICT", "You cannot suspend your own account.", { reason: "selfSuspend" });
  const result = await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select({ suspendedAt: user.suspendedAt })
      .from(user)
      .where(eq(user.id, userId))
      .for("update");
    if (!row) throw new AppError("NOT_FOUND", "Not found");
    if (!!row.suspendedAt === suspended) return { changed: false, refunded: [] as RefundedTask[] };
    await tx
      .update(user)
      .set({ suspendedAt: suspended ? new Date() : null, updatedAt: new Date() })
      .where(eq(user.id, userId));
    let refunded: RefundedTask[] = [];
    if (suspended) {
      await tx.delete(session).where(eq(session.userId, userId));
      refunded = await tx
        .update(task)
        .set({
          state: "failed",
          failedReason: SUSPENDED_REASON.text,
          failedCode: SUSPENDED_REASON.code,
          finishedAt: new Date(),
        })
        .where(and(eq(task.userId, userId), inArray(task.state, ["queued"])))
        .returning({ id: task.id, credits: task.credits, effectId: task.effectId });
      for (const t of refunded)
        await addCreditsTx(tx, {
          userId,
          amount: t.credits,
          kind: "refund",
          key: `refund:${t.id}`,
          taskId: t.id,
          note: getEffect(t.effectId)?.title ?? t.effectId,
        });
    }
    await writeAuditTx(tx, {
      actor,
      action: suspended ? "user.suspend" : "user.unsuspend",
      targetType: "user",
      targetId: userId,
      before: { suspended: !!row.suspendedAt },
      after: { suspended, tasksRefunded: refunded.length },
      reason,
    });
    return { changed: true, refunded };
  });
  if (suspended && result.changed) await deps.revokeSessions({ userIds: [userId] });
  if (result.refunded.length) {
    // The refunded tasks' originals are released as a failed task's always are.
    const inputs = await deps.db
      .select({ id: taskInput.uploadId })
      .from(taskInput)
      .where(
        inArray(
          taskInput.taskId,
          result.refunded.map((t) => t.id),
        ),
      );
    await releaseOriginals(
      deps,
      inputs.map((i) => i.id),
    ).catch(() => 0);
  }
  for (const t of result.refunded)
    await deps.events
      ?.publish({
        taskId: t.id,
        userId,
        state: "failed",
        imageUrl: null,
        failedReason: SUSPENDED_REASON.text,
        failedCode: SUSPENDED_REASON.code,
      })
      .catch(() => {});
  return { suspended, tasksRefunded: result.refunded.length };
}

interface RefundedTask {
  id: string;
  credits: number;
  effectId: string;
}

/** Whether an account is suspended (sign-in refuses it). */
export async function isSuspended(db: Db, userId: string): Promise<boolean> {
  const [row] = await db.select({ s: user.suspendedAt }).from(user).where(eq(user.id, userId));
  return !!row?.s;
}
