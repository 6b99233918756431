import { and, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Db } from "./db";
import { task, taskInput, upload } from "./schema";
import type { ImageSanitizer } from "./ports/image-sanitizer";
import { ImageRefusedError } from "./ports/image-sanitizer";
import type { EngineImage } from "./ports/renderer";
import type { ObjectStorage } from "./ports/storage";
import { AppError, Messages } from "./errors";
import { newId } from "./ids";

/** The spec's per-file limit. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

export interface UploadDeps {
  db: Db;
  storage: ObjectStorage;
  sanitizer: ImageSanitizer;
}

export const uploadPath = (id: string): string => `/api/uploads/${id}`;
const UPLOAD_PATH = /^\/api\/uploads\/([A-Za-z0-9]{10,64})$/;

/**
 * Stores one uploaded image for its owner. The type is decided by content, EXIF
 * orientation applied and metadata stripped; refusals use the spec's message with the
 * specific reason in `details.reason`. Nothing is stored for a refused file. A HEIC/HEIF
 * photo is stored converted (JPEG, or PNG with transparency): the answer's `mime`, `width`
 * and `height` are the stored image's.
 */
export async function createUpload(
  deps: UploadDeps,
  userId: string,
  bytes: Uint8Array,
): Promise<{ id: string; url: string; width: number; height: number; mime: string }> {
  if (bytes.byteLength === 0) {
    throw new AppError("UPLOAD_REJECTED", Messages.uploadRejected, { reason: "The file is empty" });
  }
  if (bytes.byteLength > MAX_UPLOAD_BYTES) {
    throw new AppError("UPLOAD_REJECTED", Messages.uploadRejected, {
      reason: "The file is larger than 10 MB",
    });
  }
  let clean;
  try {
    clean = await deps.sanitizer.sanitize(bytes);
  } catch (err) {
    if (err instanceof ImageRefusedError) {
      throw new AppError("UPLOAD_REJECTED", Messages.uploadRejected, { reason: err.reason });
    }
    throw err;
  }
  const id = newId();
  const storageKey = `uploads/${id}`;
  await deps.storage.put(storageKey, clean.bytes, clean.mime);
  try {
    await deps.db.insert(upload).values({
      id,
      userId,
      storageKey,
      mime: clean.mime,
      width: clean.width,
      height: clean.height,
      bytes: clean.bytes.byteLength,
    });
  } catch (err) {
    await deps.storage.delete(storageKey); // no orphaned file
    throw err;
  }
  return { id, url: uploadPath(id), width: clean.width, height: clean.height, mime: clean.mime };
}

/**
 * Turns the image_urls of a submit into the caller's live upload ids, in order. Accepts
 * our relative paths or absolute URLs on an allowed origin; never fetches anything.
 */
export function parseUploadUrls(urls: string[], allowedOrigins: string[]): string[] {
  return urls.map((raw) => {
    let parsed: URL;
    try {
      parsed = new URL(raw, "http://relative.invalid");
    } catch {
      throw notOurUpload();
    }
    const isRelative = parsed.origin === "http://relative.invalid" && raw.startsWith("/");
    if (!isRelative && !allowedOrigins.includes(parsed.origin)) throw notOurUpload();
    const match = UPLOAD_PATH.exec(parsed.pathname);
    if (!match || parsed.search || parsed.hash) throw notOurUpload();
    return match[1]!;
  });
}

const notOurUpload = () =>
  new AppError(
    "BAD_REQUEST",
    "Every image must be one of your own uploads. Please upload the image again.",
    undefined,
    {
      key: "notOwnUpload",
    },
  );

export const uploadGone = () =>
  new AppError(
    "BAD_REQUEST",
    "An image is not one of your uploads or is no longer available (originals are deleted after use). Please upload it again.",
    undefined,
    { key: "uploadGone" },
  );

/** What {@link loadUploads} found: the images in the order asked, and the ids it could not. */
export interface LoadedUploads {
  /** The bytes of each upload found, in the order asked (empty unless `read`). */
  images: EngineImage[];
  /** Ids with no live upload (never stored, deleted, someone else's, or its file gone). */
  missing: string[];
}

/**
 * The one way the domain reads uploads, for submit and for the task runner. Reports the
 * ids it cannot find instead of throwing, so each caller decides: submit answers 400,
 * the runner fails the task with a refund. `ownerId` limits the search to that user's
 * uploads; `read` also fetches the bytes from storage (a row whose file is gone is missing).
 */
export async function loadUploads(
  deps: Pick<UploadDeps, "db" | "storage">,
  ids: string[],
  opts: { ownerId?: string; read?: boolean } = {},
): Promise<LoadedUploads> {
  const unique = [...new Set(ids)];
  const rows = unique.length
    ? await deps.db
        .select({ id: upload.id, storageKey: upload.storageKey, mime: upload.mime })
        .from(upload)
        .where(
          and(
            inArray(upload.id, unique),
            isNull(upload.deletedAt),
            opts.ownerId === undefined ? undefined : eq(upload.userId, opts.ownerId),
          ),
        )
    : [];
  const images: EngineImage[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const row = rows.find((r) => r.id === id);
    if (!row) {
      missing.push(id);
      continue;
    }
    if (!opts.read) continue;
    const bytes = await deps.storage.get(row.storageKey);
    if (!bytes) missing.push(id);
    else images.push({ bytes, mime: row.mime });
  }
  return { images, missing: [...new Set(missing)] };
}

/** Finds a live upload for its owner (or for a verified signed URL when userId is null). */
export async function locateUpload(
  db: Db,
  id: string,
  userId: string | null,
): Promise<{ storageKey: string; mime: string } | null> {
  const rows = await db
    .select({ userId: upload.userId, storageKey: upload.storageKey, mime: upload.mime })
    .from(upload)
    .where(and(eq(upload.id, id), isNull(upload.deletedAt)));
  const row = rows[0];
  if (!row || (userId !== null && row.userId !== userId)) return null;
  return { storageKey: row.storageKey, mime: row.mime };
}

/** Not kept by the owner's "keep my originals" choice, or kept no longer (src/core/originals.ts). */
const notKept = () => or(isNull(upload.keepUntil), lte(upload.keepUntil, new Date()));

/**
 * Deletes the stored originals of these uploads unless an unfinished task still needs
 * them or their owner keeps them (until `keepUntil`). Safe to repeat. Returns how many
 * originals were deleted now.
 */
export async function deleteOriginalsIfUnused(
  deps: Pick<UploadDeps, "db" | "storage">,
  uploadIds: string[],
): Promise<number> {
  if (uploadIds.length === 0) return 0;
  const stillNeeded = await deps.db
    .selectDistinct({ uploadId: taskInput.uploadId })
    .from(taskInput)
    .innerJoin(task, eq(task.id, taskInput.taskId))
    .where(and(inArray(taskInput.uploadId, uploadIds), inArray(task.state, ["queued", "running"])));
  const keep = new Set(stillNeeded.map((r) => r.uploadId));
  const rows = await deps.db
    .select({ id: upload.id, storageKey: upload.storageKey })
    .from(upload)
    .where(and(inArray(upload.id, uploadIds), isNull(upload.deletedAt), notKept()));
  let deleted = 0;
  for (const row of rows) {
    if (keep.has(row.id)) continue;
    // File first, then the mark: a crash in between leaves a row the sweeper retries.
    await deps.storage.delete(row.storageKey);
    await deps.db.update(upload).set({ deletedAt: new Date() }).where(eq(upload.id, row.id));
    deleted++;
  }
  return deleted;
}

/** Deletes originals older than the TTL that no unfinished task uses. */
export async function sweepStaleUploads(
  deps: Pick<UploadDeps, "db" | "storage">,
  olderThan: Date,
): Promise<number> {
  const stale = await deps.db
    .select({ id: upload.id })
    .from(upload)
    .where(and(isNull(upload.deletedAt), lt(upload.createdAt, olderThan), notKept()))
    .limit(500);
  return deleteOriginalsIfUnused(
    deps,
    stale.map((r) => r.id),
  );
}

/** How many stored originals a user still has (tests and the account page). */
export async function countLiveUploads(db: Db, userId: string): Promise<number> {
  const rows = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(upload)
    .where(and(eq(upload.userId, userId), isNull(upload.deletedAt)));
  return rows[0]?.n ?? 0;
}
