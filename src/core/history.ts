import { and, desc, eq, isNull, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { EFFECTS } from "./catalogue";
import type { Db } from "./db";
import type { ObjectStorage } from "./ports/storage";
import { image, shareLink, task } from "./schema";
import { imagePath } from "./task-status";

/**
 * "My creations": the signed-in user's results, newest first, with the effect and the batch
 * (the tasks of one submit) each came from; deleting one for real (its stored file, its record
 * and its share links); the files of one batch, for its ZIP.
 */

/** Largest page of the history. */
export const HISTORY_PAGE_MAX = 24;

/** Our ids: letters and digits (ids.ts), 10 to 64 of them. */
export const RESULT_ID = /^[A-Za-z0-9]{10,64}$/;
/** Task ids as the API accepts them (generation.ts): letters, digits, - and _. */
const TASK_ID = /^[A-Za-z0-9_-]{1,64}$/;

const EFFECT_IDS = EFFECTS.map((e) => e.id) as [string, ...string[]];

/** A page's position: the last item's time (microseconds, as Postgres keeps it) and id. */
interface Cursor {
  at: string;
  id: string;
}
const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.at}|${c.id}`).toString("base64url");
}

export function decodeCursor(raw: string): Cursor | null {
  const [at, id, extra] = Buffer.from(raw, "base64url").toString("utf8").split("|");
  if (extra !== undefined || !at || !id || !ISO_MICROS.test(at) || !RESULT_ID.test(id)) return null;
  return { at, id };
}

/** The list's query string: an effect of the catalogue, a cursor from the previous page, a page size. */
export const historyQuerySchema = z.object({
  effect: z.enum(EFFECT_IDS, { error: "effect must be an effect id of the catalogue" }).optional(),
  cursor: z
    .string()
    .max(200)
    .refine((c) => decodeCursor(c) !== null, "cursor is not one this server gave")
    .optional(),
  limit: z.coerce
    .number({ error: `limit must be a number from 1 to ${HISTORY_PAGE_MAX}` })
    .int()
    .min(1, `limit must be a number from 1 to ${HISTORY_PAGE_MAX}`)
    .max(HISTORY_PAGE_MAX, `limit must be at most ${HISTORY_PAGE_MAX}`)
    .default(HISTORY_PAGE_MAX),
});
export type HistoryQuery = z.output<typeof historyQuerySchema>;

/** One result as the history shows it. */
export interface HistoryItem {
  /** The image id (what delete and share name). */
  id: string;
  taskId: string;
  /** The submit it came from (a task made before batches existed is its own batch). */
  batchId: string;
  /** How many results of that batch still exist. */
  batchSize: number;
  effectId: string;
  /** The owner's file URL (session-checked). */
  url: string;
  mime: string;
  width: number;
  height: number;
  prompt: string;
  seed: number;
  provider: string;
  model: string;
  createdAt: string;
  /** The result's live public link, if its owner made one. */
  share: { token: string; createdAt: string } | null;
}

export interface HistoryPage {
  items: HistoryItem[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** A task's batch: its submit's, or itself for tasks made before batches existed. */
const batchOf = sql<string>`coalesce(${task.batchId}, ${task.id})`;

/** Results of the same batch that still exist (one for a task without a batch id). */
const batchSize = sql<number>`case when ${task.batchId} is null then 1 else (
  select count(*)::int from "image" i2 inner join "task" t2 on i2.task_id = t2.id
  where t2.user_id = ${task.userId} and t2.batch_id = ${task.batchId}) end`;

/** created_at to the microsecond, as text (a JS Date would drop the microseconds a cursor needs). */
const createdMicros = sql<string>`to_char(${image.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** One page of the user's results, newest first; optionally of one effect. */
export async function listHistory(db: Db, userId: string, query: HistoryQuery): Promise<HistoryPage> {
  const conditions: SQL[] = [eq(image.userId, userId)];
  if (query.effect) conditions.push(eq(task.effectId, query.effect));
  const cursor = query.cursor ? decodeCursor(query.cursor) : null;
  if (cursor)
    conditions.push(sql`(${image.createdAt}, ${image.id}) < (${cursor.at}::timestamptz, ${cursor.id})`);
  const rows = await db
    .select({
      id: image.id,
      taskId: image.taskId,
      batchId: batchOf,
      batchSize,
      effectId: task.effectId,
      mime: image.mime,
      width: image.width,
      height: image.height,
      prompt: image.prompt,
      seed: image.seed,
      provider: image.provider,
      model: image.model,
      createdAt: image.createdAt,
      at: createdMicros,
      shareToken: shareLink.token,
      shareCreatedAt: shareLink.createdAt,
    })
    .from(image)
    .innerJoin(task, eq(task.id, image.taskId))
    .leftJoin(shareLink, and(eq(shareLink.imageId, image.id), isNull(shareLink.revokedAt)))
    .where(and(...conditions))
    .orderBy(desc(image.createdAt), desc(image.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    items: page.map((r) => ({
      id: r.id,
      taskId: r.taskId,
      batchId: r.batchId,
      batchSize: Number(r.batchSize),
      effectId: r.effectId,
      url: imagePath(r.id),
      mime: r.mime,
      width: r.width,
      height: r.height,
      prompt: r.prompt,
      seed: r.seed,
      provider: r.provider,
      model: r.model,
      createdAt: r.createdAt.toISOString(),
      share:
        r.shareToken && r.shareCreatedAt
          ? { token: r.shareToken, createdAt: r.shareCreatedAt.toISOString() }
          : null,
    })),
    nextCursor: rows.length > query.limit && last ? encodeCursor({ at: last.at, id: last.id }) : null,
  };
}

/**
 * Deletes one of the user's results for real: the stored file, then the record (its share
 * links go with it). Returns false when the id is not (or no longer) a result of this user:
 * someone else's id and a second delete alike, answered 404 with nothing changed. The file
 * goes first so a failure leaves a record a retry can finish; its URL answers 404 either way.
 */
export async function deleteResult(
  deps: { db: Db; storage: ObjectStorage },
  userId: string,
  imageId: string,
): Promise<boolean> {
  if (!RESULT_ID.test(imageId)) return false;
  const rows = await deps.db
    .select({ storageKey: image.storageKey })
    .from(image)
    .where(and(eq(image.id, imageId), eq(image.userId, userId)));
  const found = rows[0];
  if (!found) return false;
  await deps.storage.delete(found.storageKey);
  await deps.db.transaction(async (tx) => {
    await tx.delete(shareLink).where(eq(shareLink.imageId, imageId));
    await tx.delete(image).where(and(eq(image.id, imageId), eq(image.userId, userId)));
  });
  return true;
}

/** Which batch a ZIP is of: its id (from the history), or any one of its tasks (after a submit). */
export const batchQuerySchema = z
  .object({
    batch: z.string().regex(RESULT_ID, "batch must be a batch id").optional(),
    task: z.string().regex(TASK_ID, "task must be a task id").optional(),
  })
  .refine((q) => (q.batch === undefined) !== (q.task === undefined), "Send batch or task, not both");
export type BatchQuery = z.output<typeof batchQuerySchema>;

export interface BatchFile {
  imageId: string;
  effectId: string;
  storageKey: string;
  mime: string;
  createdAt: Date;
}

/**
 * The user's existing results of one batch, in the order they were made.
 * Empty when the batch is someone else's, unknown, or has no result left.
 */
export async function batchFiles(db: Db, userId: string, query: BatchQuery): Promise<BatchFile[]> {
  let batchId: string;
  if (query.task !== undefined) {
    const t = await db
      .select({ batch: batchOf })
      .from(task)
      .where(and(eq(task.id, query.task), eq(task.userId, userId)));
    if (!t[0]) return [];
    batchId = t[0].batch;
  } else {
    batchId = query.batch!;
  }
  const rows = await db
    .select({
      imageId: image.id,
      effectId: task.effectId,
      storageKey: image.storageKey,
      mime: image.mime,
      createdAt: image.createdAt,
    })
    .from(image)
    .innerJoin(task, eq(task.id, image.taskId))
    .where(
      and(
        eq(image.userId, userId),
        eq(task.userId, userId),
        or(eq(task.batchId, batchId), and(isNull(task.batchId), eq(task.id, batchId))),
      ),
    )
    .orderBy(image.createdAt, image.id);
  return rows;
}
