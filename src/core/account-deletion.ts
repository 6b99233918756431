import { and, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { z } from "zod";
import { anonymiseAuditTx } from "./admin/audit";
import { getEffect } from "./catalogue";
import { addCreditsTx, getBalance } from "./credits";
import type { Db } from "./db";
import { AppError } from "./errors";
import { newId } from "./ids";
import type { PaymentProvider } from "./ports/payments";
import type { SessionRevocation } from "./ports/session-revocations";
import type { ObjectStorage } from "./ports/storage";
import type { TaskEventBus } from "./ports/task-events";
import { creditEntry, image, subscription, task, upload, user, verification } from "./schema";

/**
 * Deleting an account, for good (ADR 016). In order:
 *
 * 1. The typed confirmation must be the account's e-mail.
 * 2. A live subscription is cancelled now: at Stripe through the payments port (no further
 *    invoice); a test-checkout one only lives in our database. If Stripe cannot be reached
 *    nothing is deleted and the user is asked to try again (never "deleted but still billed").
 * 3. One transaction: unfinished tasks fail (`accountDeleted`) and are refunded exactly as a
 *    failed task always is, so every charge in the ledger has its task's outcome; the
 *    ledger's rows move to an opaque tombstone id (`deleted_…`, also in the idempotency keys
 *    that held the user id) and keep their amounts, so the ledger's totals do not change;
 *    the user row goes, and with it (foreign-key cascades) sessions, sign-in accounts, the
 *    balance, uploads, tasks, results, share links, subscription, checkouts and preferences.
 * 4. After commit: every process drops the user's cached sessions (the revocation
 *    broadcast), the stored files (results and originals) are deleted, and open task streams
 *    hear that the cancelled tasks failed.
 *
 * A render still running for a cancelled task finds its task gone when it finishes and deletes
 * its output (task-lifecycle's conditional settle), so nothing is written back afterwards.
 */

export const deleteAccountSchema = z
  .object({ confirmation: z.string().max(320, "The confirmation is too long") })
  .strict();

export const ACCOUNT_DELETED_REASON = {
  code: "accountDeleted",
  text: "The account was deleted. Your credits have been refunded.",
} as const;

export interface AccountDeletionDeps {
  db: Db;
  storage: ObjectStorage;
  payments: PaymentProvider;
  /** Ends the user's sessions in every process's session cache (services.revokeSessions). */
  revokeSessions(revocation: SessionRevocation): Promise<void>;
  events?: TaskEventBus;
  log?: (msg: string, extra?: Record<string, unknown>) => void;
}

export interface AccountDeletionReport {
  /** The opaque id the ledger's rows now carry. */
  tombstone: string;
  /** Unused credits forfeited (the tombstone's ledger sums to this). */
  forfeitedCredits: number;
  tasksCancelled: number;
  /** "stripe" or "test" when a live subscription was cancelled, else null. */
  subscriptionCancelled: "stripe" | "test" | null;
  filesDeleted: number;
  /** Files storage refused to delete (logged with their keys; unreachable, their rows are gone). */
  filesFailed: number;
}

const confirmationMismatch = () =>
  new AppError("VALIDATION", "Type your account's e-mail address exactly to confirm.", {
    reason: "confirmationMismatch",
  });

const normalise = (s: string) => s.trim().toLowerCase();

export async function deleteAccount(
  deps: AccountDeletionDeps,
  who: { id: string },
  body: unknown,
): Promise<AccountDeletionReport> {
  const parsed = deleteAccountSchema.safeParse(body);
  if (!parsed.success) throw confirmationMismatch();
  const [profile] = await deps.db.select({ email: user.email }).from(user).where(eq(user.id, who.id));
  if (!profile) throw new AppError("NOT_FOUND", "Account not found");
  if (normalise(parsed.data.confirmation) !== normalise(profile.email)) throw confirmationMismatch();

  const subscriptionCancelled = await cancelSubscription(deps, who.id);

  const tombstone = `deleted_${newId()}`;
  const done = await deps.db.transaction(async (tx) => {
    const cancelled = await tx
      .update(task)
      .set({
        state: "failed",
        failedReason: ACCOUNT_DELETED_REASON.text,
        failedCode: ACCOUNT_DELETED_REASON.code,
        finishedAt: new Date(),
      })
      .where(and(eq(task.userId, who.id), inArray(task.state, ["queued", "running"])))
      .returning({ id: task.id, credits: task.credits, effectId: task.effectId });
    for (const t of cancelled) {
      await addCreditsTx(tx, {
        userId: who.id,
        amount: t.credits,
        kind: "refund",
        key: `refund:${t.id}`,
        taskId: t.id,
        note: getEffect(t.effectId)?.title ?? t.effectId,
      });
    }
    // Read after the tasks are settled: a result committed meanwhile is in this list.
    const files = [
      ...(await tx
        .select({ key: upload.storageKey })
        .from(upload)
        .where(and(eq(upload.userId, who.id), isNull(upload.deletedAt)))),
      ...(await tx.select({ key: image.storageKey }).from(image).where(eq(image.userId, who.id))),
    ].map((r) => r.key);
    const forfeitedCredits = await getBalance(tx, who.id);
    await tx
      .update(creditEntry)
      .set({
        userId: tombstone,
        idempotencyKey: sql`replace(${creditEntry.idempotencyKey}, ${who.id}, ${tombstone})`,
      })
      .where(eq(creditEntry.userId, who.id));
    // Password-reset and e-mail tokens name the user by id or address.
    await tx
      .delete(verification)
      .where(or(eq(verification.value, who.id), eq(verification.identifier, profile.email)));
    // The admin console's audit rows keep what was done, not who the person was.
    await anonymiseAuditTx(tx, { id: who.id, email: profile.email }, tombstone);
    await tx.delete(user).where(eq(user.id, who.id));
    return { cancelled, files, forfeitedCredits };
  });

  await deps.revokeSessions({ userIds: [who.id] });

  let filesDeleted = 0;
  let filesFailed = 0;
  for (const key of done.files) {
    try {
      await deps.storage.delete(key);
      filesDeleted++;
    } catch (err) {
      filesFailed++;
      deps.log?.("a deleted account's file could not be deleted", { key, err: String(err) });
    }
  }
  for (const t of done.cancelled) {
    await deps.events
      ?.publish({
        taskId: t.id,
        userId: who.id,
        state: "failed",
        imageUrl: null,
        failedReason: ACCOUNT_DELETED_REASON.text,
        failedCode: ACCOUNT_DELETED_REASON.code,
      })
      .catch(() => {});
  }
  return {
    tombstone,
    forfeitedCredits: done.forfeitedCredits,
    tasksCancelled: done.cancelled.length,
    subscriptionCancelled,
    filesDeleted,
    filesFailed,
  };
}

/** Cancels a live subscription now; throws (nothing deleted yet) when its provider cannot. */
async function cancelSubscription(
  deps: Pick<AccountDeletionDeps, "db" | "payments" | "log">,
  userId: string,
): Promise<"stripe" | "test" | null> {
  const [sub] = await deps.db.select().from(subscription).where(eq(subscription.userId, userId));
  if (!sub || sub.status === "canceled") return null;
  if (sub.provider === "stripe" && sub.providerSubscriptionId) {
    if (deps.payments.kind !== "stripe") {
      throw new AppError(
        "UNAVAILABLE",
        "Your subscription is billed by Stripe, which this server no longer reaches, so nothing was deleted. Please contact support.",
        { reason: "subscriptionNotCancelled" },
      );
    }
    try {
      await deps.payments.cancelSubscription(sub.providerSubscriptionId);
    } catch (err) {
      deps.log?.("subscription cancel failed", { userId, err: String(err) });
      throw new AppError(
        "UNAVAILABLE",
        "We could not cancel your subscription with the payment provider, so nothing was deleted. Please try again in a few minutes.",
        { reason: "subscriptionNotCancelled" },
      );
    }
  }
  await deps.db
    .update(subscription)
    .set({ status: "canceled", currentPeriodEnd: new Date(), updatedAt: new Date() })
    .where(eq(subscription.userId, userId));
  return sub.provider === "stripe" ? "stripe" : "test";
}
