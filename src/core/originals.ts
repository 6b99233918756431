import { and, eq, inArray, isNotNull, isNull, lte, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "./db";
import type { ObjectStorage } from "./ports/storage";
import { upload, userPreference } from "./schema";
import { deleteOriginalsIfUnused } from "./uploads";

/**
 * "Keep my original photos for 30 days" (ADR 016). Off by default: a task's originals are
 * deleted when no unfinished task needs them, as the product's copy promises. On: when a task
 * ends its originals get `keep_until = end + 30 days` instead, which every deletion path
 * (uploads.ts#deleteOriginalsIfUnused, the stale-upload sweep) respects; the originals sweep
 * deletes them once that time has passed. Turning the choice off deletes the kept ones at once.
 */

export const KEEP_ORIGINALS_DAYS = 30;
const KEEP_MS = KEEP_ORIGINALS_DAYS * 24 * 3600 * 1000;

export interface Preferences {
  keepOriginals: boolean;
}

export const preferencesSchema = z.object({ keepOriginals: z.boolean() }).strict();

export async function getPreferences(db: Db, userId: string): Promise<Preferences> {
  const rows = await db
    .select({ keepOriginals: userPreference.keepOriginals })
    .from(userPreference)
    .where(eq(userPreference.userId, userId));
  return { keepOriginals: rows[0]?.keepOriginals ?? false };
}

/**
 * Saves the choice. Turning it off ends every kept original now (those an unfinished task
 * still needs go when that task ends). Returns the saved choice and how many files went.
 */
export async function setPreferences(
  deps: { db: Db; storage: ObjectStorage },
  userId: string,
  prefs: Preferences,
): Promise<Preferences & { originalsDeleted: number }> {
  await deps.db
    .insert(userPreference)
    .values({ userId, keepOriginals: prefs.keepOriginals })
    .onConflictDoUpdate({
      target: userPreference.userId,
      set: { keepOriginals: prefs.keepOriginals, updatedAt: new Date() },
    });
  let originalsDeleted = 0;
  if (!prefs.keepOriginals) {
    const released = await deps.db
      .update(upload)
      .set({ keepUntil: null })
      .where(and(eq(upload.userId, userId), isNull(upload.deletedAt), isNotNull(upload.keepUntil)))
      .returning({ id: upload.id });
    originalsDeleted = await deleteOriginalsIfUnused(
      deps,
      released.map((r) => r.id),
    );
  }
  return { keepOriginals: prefs.keepOriginals, originalsDeleted };
}

/**
 * A task has ended: its originals are kept for 30 days when their owner chose so, else
 * deleted unless an unfinished task still needs them (the default, step 5 of the flow).
 */
export async function releaseOriginals(
  deps: { db: Db; storage: ObjectStorage },
  uploadIds: string[],
): Promise<number> {
  if (uploadIds.length === 0) return 0;
  // One statement: the owner's choice is read as the mark is written.
  await deps.db
    .update(upload)
    .set({ keepUntil: new Date(Date.now() + KEEP_MS) })
    .where(
      and(
        inArray(upload.id, uploadIds),
        isNull(upload.deletedAt),
        sql`exists (select 1 from ${userPreference} where ${userPreference.userId} = ${upload.userId} and ${userPreference.keepOriginals})`,
      ),
    );
  return deleteOriginalsIfUnused(deps, uploadIds);
}

/** Deletes kept originals whose 30 days have passed (run by the sweeper). */
export async function sweepKeptOriginals(deps: { db: Db; storage: ObjectStorage }): Promise<number> {
  const due = await deps.db
    .select({ id: upload.id })
    .from(upload)
    .where(and(isNull(upload.deletedAt), isNotNull(upload.keepUntil), lte(upload.keepUntil, new Date())))
    .limit(500);
  return deleteOriginalsIfUnused(
    deps,
    due.map((r) => r.id),
  );
}
