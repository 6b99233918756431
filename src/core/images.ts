import { and, count, desc, eq, gte } from "drizzle-orm";
import type { Db } from "./db";
import { image } from "./schema";
import { imagePath } from "./task-status";

/** A generated image as the client sees it (spec: url, prompt, createdAt, uploadedImages, seed). */
export interface GeneratedImage {
  id: string;
  taskId: string;
  url: string;
  prompt: string;
  createdAt: string;
  uploadedImages: string[];
  seed: number;
  width: number;
  height: number;
  provider: string;
  model: string;
}

/** The user's results, newest first. */
export async function listImages(db: Db, userId: string, limit = 50): Promise<GeneratedImage[]> {
  const rows = await db
    .select()
    .from(image)
    .where(eq(image.userId, userId))
    .orderBy(desc(image.createdAt))
    .limit(limit);
  return rows.map((r) => ({
    id: r.id,
    taskId: r.taskId,
    url: imagePath(r.id),
    prompt: r.prompt,
    createdAt: r.createdAt.toISOString(),
    uploadedImages: r.sourceUrls,
    seed: r.seed,
    width: r.width,
    height: r.height,
    provider: r.provider,
    model: r.model,
  }));
}

/** Finds a generated image for its owner (or for a verified signed URL when userId is null). */
export async function locateImage(
  db: Db,
  id: string,
  userId: string | null,
): Promise<{ storageKey: string; mime: string } | null> {
  const rows = await db
    .select({ storageKey: image.storageKey, mime: image.mime })
    .from(image)
    .where(userId === null ? eq(image.id, id) : and(eq(image.id, id), eq(image.userId, userId)));
  return rows[0] ?? null;
}

/** Images stored since midnight UTC, counted per provider and model (the spend caps' start). */
export async function imagesToday(
  db: Db,
): Promise<Array<{ provider: string; model: string; count: number }>> {
  const midnight = new Date(new Date().toISOString().slice(0, 10) + "T00:00:00Z");
  return db
    .select({ provider: image.provider, model: image.model, count: count() })
    .from(image)
    .where(gte(image.createdAt, midnight))
    .groupBy(image.provider, image.model);
}
