import { asc, eq } from "drizzle-orm";
import type { Db } from "./db";
import { getBalance } from "./credits";
import { getPreferences } from "./originals";
import {
  account,
  checkoutSession,
  creditEntry,
  image,
  session,
  shareLink,
  subscription,
  task,
  taskInput,
  upload,
  user,
} from "./schema";
import { sharePagePath } from "./share";
import { imagePath } from "./task-status";

/**
 * "Export my data": everything photofx holds about one user, as one JSON document plus the
 * files still stored (results, and originals the user chose to keep). Only the owner's rows
 * are read; secrets are left out (password hashes, OAuth and session tokens). The API streams
 * it as a ZIP (src/api/routes/account.ts).
 */

export const EXPORT_FORMAT = "photofx-data-export/1";
export const EXPORT_DOCUMENT_NAME = "photofx-data.json";

const EXT: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
  "image/avif": "avif",
};
const fileName = (folder: string, id: string, mime: string) => `${folder}/${id}.${EXT[mime] ?? "bin"}`;

/** A stored file of the export: its path in the ZIP and where it is in storage. */
export interface ExportFile {
  path: string;
  storageKey: string;
  mime: string;
  createdAt: Date;
}

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/** The export of one user, or null when there is no such user. */
export async function collectExport(
  db: Db,
  userId: string,
  now = new Date(),
): Promise<{ document: Record<string, unknown>; files: ExportFile[] } | null> {
  const [profile] = await db.select().from(user).where(eq(user.id, userId));
  if (!profile) return null;

  const signIns = await db
    .select({ providerId: account.providerId, createdAt: account.createdAt })
    .from(account)
    .where(eq(account.userId, userId));
  const sessions = await db
    .select({
      createdAt: session.createdAt,
      expiresAt: session.expiresAt,
      ipAddress: session.ipAddress,
      userAgent: session.userAgent,
    })
    .from(session)
    .where(eq(session.userId, userId))
    .orderBy(asc(session.createdAt));
  const [sub] = await db.select().from(subscription).where(eq(subscription.userId, userId));
  const checkouts = await db
    .select({
      id: checkoutSession.id,
      productId: checkoutSession.productId,
      kind: checkoutSession.kind,
      provider: checkoutSession.provider,
      status: checkoutSession.status,
      createdAt: checkoutSession.createdAt,
      completedAt: checkoutSession.completedAt,
    })
    .from(checkoutSession)
    .where(eq(checkoutSession.userId, userId))
    .orderBy(asc(checkoutSession.createdAt));
  const ledger = await db
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
    .orderBy(asc(creditEntry.createdAt), asc(creditEntry.id));
  const tasks = await db
    .select({
      id: task.id,
      effectId: task.effectId,
      imageType: task.imageType,
      route: task.route,
      prompt: task.prompt,
      options: task.options,
      seed: task.seed,
      state: task.state,
      credits: task.credits,
      failedReason: task.failedReason,
      createdAt: task.createdAt,
      startedAt: task.startedAt,
      finishedAt: task.finishedAt,
    })
    .from(task)
    .where(eq(task.userId, userId))
    .orderBy(asc(task.createdAt));
  const inputs = await db
    .select({ taskId: taskInput.taskId, uploadId: taskInput.uploadId, position: taskInput.position })
    .from(taskInput)
    .innerJoin(task, eq(task.id, taskInput.taskId))
    .where(eq(task.userId, userId))
    .orderBy(asc(taskInput.taskId), asc(taskInput.position));
  const uploads = await db
    .select()
    .from(upload)
    .where(eq(upload.userId, userId))
    .orderBy(asc(upload.createdAt));
  const images = await db.select().from(image).where(eq(image.userId, userId)).orderBy(asc(image.createdAt));
  const links = await db
    .select({
      token: shareLink.token,
      imageId: shareLink.imageId,
      createdAt: shareLink.createdAt,
      revokedAt: shareLink.revokedAt,
    })
    .from(shareLink)
    .where(eq(shareLink.userId, userId))
    .orderBy(asc(shareLink.createdAt));

  const files: ExportFile[] = [];
  const imageFile = new Map<string, string>();
  for (const img of images) {
    const path = fileName("images", img.id, img.mime);
    imageFile.set(img.id, path);
    files.push({ path, storageKey: img.storageKey, mime: img.mime, createdAt: img.createdAt });
  }
  const originalFile = new Map<string, string>();
  for (const up of uploads) {
    if (up.deletedAt) continue;
    const path = fileName("originals", up.id, up.mime);
    originalFile.set(up.id, path);
    files.push({ path, storageKey: up.storageKey, mime: up.mime, createdAt: up.createdAt });
  }
  const inputsOf = new Map<string, string[]>();
  for (const i of inputs) inputsOf.set(i.taskId, [...(inputsOf.get(i.taskId) ?? []), i.uploadId]);

  const document = {
    format: EXPORT_FORMAT,
    exportedAt: now.toISOString(),
    notes: [
      "Everything photofx holds about your account. Files are in images/ (your results) and originals/ (photos kept at your request).",
      "Originals are deleted after use unless you chose to keep them; an upload listed with deletedAt has no file any more.",
      "Left out on purpose: your password's hash and sign-in tokens.",
    ],
    profile: {
      id: profile.id,
      name: profile.name,
      email: profile.email,
      emailVerified: profile.emailVerified,
      image: profile.image,
      createdAt: iso(profile.createdAt),
      updatedAt: iso(profile.updatedAt),
      signInMethods: signIns.map((s) => ({ provider: s.providerId, since: iso(s.createdAt) })),
    },
    sessions: sessions.map((s) => ({
      createdAt: iso(s.createdAt),
      expiresAt: iso(s.expiresAt),
      ipAddress: s.ipAddress,
      userAgent: s.userAgent,
    })),
    preferences: await getPreferences(db, userId),
    plan: {
      subscription: sub
        ? {
            planId: sub.planId,
            status: sub.status,
            currentPeriodEnd: iso(sub.currentPeriodEnd),
            provider: sub.provider,
            providerCustomerId: sub.providerCustomerId,
            providerSubscriptionId: sub.providerSubscriptionId,
          }
        : null,
      checkouts: checkouts.map((c) => ({
        ...c,
        createdAt: iso(c.createdAt),
        completedAt: iso(c.completedAt),
      })),
    },
    credits: {
      balance: await getBalance(db, userId),
      ledger: ledger.map((e) => ({ ...e, createdAt: iso(e.createdAt) })),
    },
    tasks: tasks.map((t) => ({
      ...t,
      createdAt: iso(t.createdAt),
      startedAt: iso(t.startedAt),
      finishedAt: iso(t.finishedAt),
      uploadIds: inputsOf.get(t.id) ?? [],
    })),
    uploads: uploads.map((u) => ({
      id: u.id,
      mime: u.mime,
      width: u.width,
      height: u.height,
      bytes: u.bytes,
      createdAt: iso(u.createdAt),
      deletedAt: iso(u.deletedAt),
      keptUntil: iso(u.keepUntil),
      file: originalFile.get(u.id) ?? null,
    })),
    images: images.map((i) => ({
      id: i.id,
      taskId: i.taskId,
      url: imagePath(i.id),
      file: imageFile.get(i.id) ?? null,
      mime: i.mime,
      width: i.width,
      height: i.height,
      prompt: i.prompt,
      seed: i.seed,
      sourceUrls: i.sourceUrls,
      provider: i.provider,
      model: i.model,
      createdAt: iso(i.createdAt),
    })),
    shareLinks: links.map((l) => ({
      imageId: l.imageId,
      url: sharePagePath(l.token),
      active: l.revokedAt === null,
      createdAt: iso(l.createdAt),
      revokedAt: iso(l.revokedAt),
    })),
  };
  return { document, files };
}
