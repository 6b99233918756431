import { and, desc, eq, lt, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Tx } from "../db";
import { adminAudit } from "../schema";

/**
 * The console's audit log: one row per operator action, written in the same transaction as
 * the change it records, so an action without its row (or a row without its action) cannot
 * exist. Append-only: nothing here updates or deletes, and the table refuses DELETE (a
 * trigger, drizzle/0007). The one rewrite is anonymisation when an account is deleted
 * (`anonymiseAuditTx`, called from account-deletion.ts).
 */

export type AuditAction =
  | "credits.grant"
  | "credits.remove"
  | "user.suspend"
  | "user.unsuspend"
  | "user.role"
  | "task.refund"
  | "effect.update";

export interface AuditEntry {
  actor: { id: string; email: string };
  action: AuditAction;
  targetType: "user" | "task" | "effect";
  targetId: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  reason?: string | null;
}

type Writer = Pick<Tx, "insert">;

export async function writeAuditTx(tx: Writer, e: AuditEntry): Promise<void> {
  await tx.insert(adminAudit).values({
    actorId: e.actor.id,
    actorEmail: e.actor.email,
    action: e.action,
    targetType: e.targetType,
    targetId: e.targetId,
    before: e.before,
    after: e.after,
    reason: e.reason ?? null,
  });
}

export const auditQuerySchema = z
  .object({
    target: z.string().max(200).optional(),
    before: z.coerce.number().int().positive().optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
  })
  .strict();

export interface AuditRow {
  id: number;
  actorId: string;
  actorEmail: string | null;
  action: string;
  targetType: string;
  targetId: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  reason: string | null;
  createdAt: Date;
}

/** Newest first; `target` narrows to one user, task or effect id; `before` pages by id. */
export async function listAudit(
  db: Db,
  q: z.output<typeof auditQuerySchema>,
): Promise<{ rows: AuditRow[]; nextBefore: number | null }> {
  const rows = await db
    .select()
    .from(adminAudit)
    .where(
      and(
        q.target ? or(eq(adminAudit.targetId, q.target), eq(adminAudit.actorId, q.target)) : undefined,
        q.before ? lt(adminAudit.id, q.before) : undefined,
      ),
    )
    .orderBy(desc(adminAudit.id))
    .limit(q.limit + 1);
  const more = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  return { rows: page, nextBefore: more ? page[page.length - 1]!.id : null };
}

/**
 * A deleted account's personal data leaves the audit log: its id becomes the ledger's
 * tombstone (actor and target), its e-mail address goes (the actor's column, and anywhere in
 * before/after, e.g. a role change naming it). The rows themselves stay: what was done stays
 * on record, not who the person was.
 */
export async function anonymiseAuditTx(
  tx: Pick<Tx, "update">,
  who: { id: string; email: string },
  tombstone: string,
): Promise<void> {
  const scrub = (col: typeof adminAudit.before | typeof adminAudit.after) =>
    sql`case when ${col} is null then null else replace(replace(${col}::text, ${jsonString(who.email)}, '"[deleted]"'), ${jsonString(who.id)}, ${jsonString(tombstone)})::jsonb end`;
  await tx
    .update(adminAudit)
    .set({ actorId: tombstone, actorEmail: null })
    .where(eq(adminAudit.actorId, who.id));
  await tx
    .update(adminAudit)
    .set({ targetId: tombstone })
    .where(and(eq(adminAudit.targetType, "user"), eq(adminAudit.targetId, who.id)));
  await tx
    .update(adminAudit)
    .set({ before: scrub(adminAudit.before), after: scrub(adminAudit.after) })
    .where(
      or(
        sql`${adminAudit.before}::text like ${"%" + who.email + "%"}`,
        sql`${adminAudit.after}::text like ${"%" + who.email + "%"}`,
        sql`${adminAudit.before}::text like ${"%" + who.id + "%"}`,
        sql`${adminAudit.after}::text like ${"%" + who.id + "%"}`,
      ),
    );
}

/** A string as it appears inside JSON text (quoted, escaped). */
const jsonString = (s: string) => JSON.stringify(s);
