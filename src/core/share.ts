import { randomBytes } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "./db";
import { RESULT_ID } from "./history";
import { image, shareLink, task } from "./schema";

/**
 * Public links to one result: made by its owner (opt-in, one result at a time), revocable,
 * unguessable. A link shows the image and the effect it was made with to anyone who has it;
 * revoked, or once the result is deleted, it answers 404 like a token that never existed.
 */

/** 192 random bits, base64url (32 characters). */
export const newShareToken = (): string => randomBytes(24).toString("base64url");
/** What a share token looks like; anything else is refused before the database is asked. */
export const SHARE_TOKEN = /^[A-Za-z0-9_-]{32}$/;

/** Public path of a share's page (unprefixed: the visitor's language is negotiated) and image. */
export const sharePagePath = (token: string): string => `/s/${token}`;
export const shareImagePath = (token: string): string => `/api/share/${token}/image`;

export interface ShareLinkInfo {
  token: string;
  createdAt: string;
  /** The page's path (`/s/<token>`). */
  url: string;
}

const PG_UNIQUE_VIOLATION = "23505";
const isUniqueViolation = (err: unknown): boolean => {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: string }).code === PG_UNIQUE_VIOLATION) return true;
  }
  return false;
};

async function activeLink(db: Db, imageId: string): Promise<ShareLinkInfo | null> {
  const rows = await db
    .select({ token: shareLink.token, createdAt: shareLink.createdAt })
    .from(shareLink)
    .where(and(eq(shareLink.imageId, imageId), isNull(shareLink.revokedAt)));
  const r = rows[0];
  return r ? { token: r.token, createdAt: r.createdAt.toISOString(), url: sharePagePath(r.token) } : null;
}

/**
 * The result's public link, made now or the one it already has (one live link per result;
 * a double click makes one). Null when the id is not a result of this user.
 */
export async function createShareLink(
  db: Db,
  userId: string,
  imageId: string,
): Promise<ShareLinkInfo | null> {
  if (!RESULT_ID.test(imageId)) return null;
  const owned = await db
    .select({ id: image.id })
    .from(image)
    .where(and(eq(image.id, imageId), eq(image.userId, userId)));
  if (!owned[0]) return null;
  const existing = await activeLink(db, imageId);
  if (existing) return existing;
  try {
    const [row] = await db
      .insert(shareLink)
      .values({ token: newShareToken(), imageId, userId })
      .returning({ token: shareLink.token, createdAt: shareLink.createdAt });
    return { token: row!.token, createdAt: row!.createdAt.toISOString(), url: sharePagePath(row!.token) };
  } catch (err) {
    // A concurrent click made it first (one live link per result): answer with that one.
    if (isUniqueViolation(err)) return activeLink(db, imageId);
    throw err;
  }
}

/**
 * Revokes the result's live link: from now on it answers 404. True when the result is the
 * user's (whether or not it had a live link: revoking twice is fine), false otherwise.
 */
export async function revokeShareLink(db: Db, userId: string, imageId: string): Promise<boolean> {
  if (!RESULT_ID.test(imageId)) return false;
  const owned = await db
    .select({ id: image.id })
    .from(image)
    .where(and(eq(image.id, imageId), eq(image.userId, userId)));
  if (!owned[0]) return false;
  await db
    .update(shareLink)
    .set({ revokedAt: new Date() })
    .where(and(eq(shareLink.imageId, imageId), eq(shareLink.userId, userId), isNull(shareLink.revokedAt)));
  return true;
}

/** What a live share shows: the image and the effect it was made with. */
export interface SharedResult {
  token: string;
  imageId: string;
  effectId: string;
  storageKey: string;
  mime: string;
  width: number;
  height: number;
  createdAt: Date;
}

/** The live share a token names; null for a malformed, unknown or revoked token. */
export async function findShare(db: Db, token: string): Promise<SharedResult | null> {
  if (!SHARE_TOKEN.test(token)) return null;
  const rows = await db
    .select({
      token: shareLink.token,
      imageId: image.id,
      effectId: task.effectId,
      storageKey: image.storageKey,
      mime: image.mime,
      width: image.width,
      height: image.height,
      createdAt: image.createdAt,
    })
    .from(shareLink)
    .innerJoin(image, eq(image.id, shareLink.imageId))
    .innerJoin(task, eq(task.id, image.taskId))
    .where(and(eq(shareLink.token, token), isNull(shareLink.revokedAt)));
  return rows[0] ?? null;
}
