import { and, eq, ne, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db";
import { AppError } from "../errors";
import { user } from "../schema";
import { writeAuditTx } from "./audit";

/**
 * Who may use the console. An account is an admin when its `role` is "admin". ADMIN_EMAILS
 * makes the accounts of those addresses admins, but only once the address is verified:
 * otherwise whoever registered the address first (an attacker, before the operator) would
 * own the console. This holds with EMAIL_VERIFICATION=off too (no SMTP): such an operator
 * verifies through the link of the outbox (DATA_DIR/mail, `/dev/mail` in development), which
 * only someone with access to the server can read. Admins promote and demote others in the
 * console; an ADMIN_EMAILS account cannot be demoted there (the variable would grant it again
 * at its next sign-in): remove it from the variable instead.
 */

export type Role = "user" | "admin";

export interface Actor {
  id: string;
  email: string;
}

/** ADMIN_EMAILS as a set of lower-case addresses. */
export function parseAdminEmails(raw: string | undefined): ReadonlySet<string> {
  return new Set(
    (raw ?? "")
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
}

/**
 * Grants the admin role to an account of ADMIN_EMAILS whose address is verified (sign-in and
 * verification hooks call it; so does each console request, so a session from before the
 * variable was set works once the address is verified). Answers whether the account is an admin.
 */
export async function syncAdminRole(
  db: Db,
  userId: string,
  adminEmails: ReadonlySet<string>,
): Promise<boolean> {
  if (!adminEmails.size) return false;
  const [row] = await db
    .select({ email: user.email, verified: user.emailVerified, role: user.role })
    .from(user)
    .where(eq(user.id, userId));
  if (!row || !row.verified || !adminEmails.has(row.email.toLowerCase())) return row?.role === "admin";
  if (row.role !== "admin")
    await db.update(user).set({ role: "admin", updatedAt: new Date() }).where(eq(user.id, userId));
  return true;
}

/**
 * The admin making a console request, or null (the caller answers 404: the console's
 * existence is not disclosed). Read from the database on every request, so a demotion or a
 * suspension takes effect at once, whatever a session cache holds.
 */
export async function adminActor(
  db: Db,
  userId: string,
  adminEmails: ReadonlySet<string>,
): Promise<Actor | null> {
  await syncAdminRole(db, userId, adminEmails);
  const [row] = await db
    .select({ id: user.id, email: user.email, role: user.role, suspendedAt: user.suspendedAt })
    .from(user)
    .where(eq(user.id, userId));
  if (!row || row.role !== "admin" || row.suspendedAt) return null;
  return { id: row.id, email: row.email };
}

/** Whether the account is an admin (the header's link to /admin). */
export async function isAdmin(db: Db, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ role: user.role, suspendedAt: user.suspendedAt })
    .from(user)
    .where(eq(user.id, userId));
  return row?.role === "admin" && !row.suspendedAt;
}

export const setRoleSchema = z.object({ role: z.enum(["user", "admin"]) }).strict();

/** Promotes or demotes an account; audited. Refuses demoting oneself or an ADMIN_EMAILS account. */
export async function setRole(
  db: Db,
  actor: Actor,
  userId: string,
  body: unknown,
  adminEmails: ReadonlySet<string>,
): Promise<{ role: Role }> {
  const parsed = setRoleSchema.safeParse(body);
  if (!parsed.success) throw new AppError("VALIDATION", 'Send { role: "user" | "admin" }.');
  const role = parsed.data.role;
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ email: user.email, role: user.role })
      .from(user)
      .where(eq(user.id, userId))
      .for("update");
    if (!row) throw new AppError("NOT_FOUND", "Not found");
    if (role === "user" && userId === actor.id)
      throw new AppError("CONFLICT", "You cannot remove your own admin role.", { reason: "selfDemote" });
    if (role === "user" && adminEmails.has(row.email.toLowerCase()))
      throw new AppError("CONFLICT", "This account is an admin through ADMIN_EMAILS: remove it there.", {
        reason: "envAdmin",
      });
    if (row.role === role) return { role };
    await tx
      .update(user)
      .set({ role, updatedAt: new Date() })
      .where(and(eq(user.id, userId), ne(user.role, role)));
    await writeAuditTx(tx, {
      actor,
      action: "user.role",
      targetType: "user",
      targetId: userId,
      before: { role: row.role },
      after: { role },
    });
    return { role };
  });
}

/** Accounts with the admin role (the console's list of admins). */
export async function listAdmins(db: Db): Promise<Array<{ id: string; email: string }>> {
  return db
    .select({ id: user.id, email: user.email })
    .from(user)
    .where(eq(user.role, "admin"))
    .orderBy(sql`${user.email}`);
}
