import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "./db";
import { AppError } from "./errors";
import {
  GENERAL_MODELS,
  GENERATE_ROUTES,
  isFreeForm,
  routeTier,
  TEXT_TO_IMAGE_ID,
  type GenerateRoute,
} from "./free-form";
import { generate, type GenerateDeps } from "./generate";
import { image, task, taskInput, upload } from "./schema";
import { submitGeneration } from "./submit";
import { uploadPath } from "./uploads";

/**
 * What kept originals make possible (src/core/originals.ts): a result next to the photos it
 * was made from, and the same request again. A re-run goes through the normal submit path
 * (same credits, plan cap, bot-check, effect rules, runtime settings) with the result's
 * effect, options, prompt and seed; a result of someone else answers null (404). A free-form
 * result (the generic generate call without an effect) is asked again through that call, with
 * its instruction, shape, model tier and seed, so it is held to the same checks (a server
 * without a generative engine refuses it, translated, before any charge).
 */

/** Our ids (ids.ts): letters and digits; anything else is not found before the database is asked. */
const RESULT_ID = /^[A-Za-z0-9]{10,64}$/;

export interface ResultOriginals {
  imageId: string;
  effectId: string;
  /** Every original of the result is still stored (kept), so compare and re-run work. */
  kept: boolean;
  /** When the first of them goes (ISO time), while kept. */
  keptUntil: string | null;
  /** The originals, in the task's order (empty unless kept); their URLs serve the owner only. */
  originals: Array<{ id: string; url: string; width: number; height: number }>;
}

async function resultSource(db: Db, userId: string, imageId: string) {
  if (!RESULT_ID.test(imageId)) return null;
  const rows = await db
    .select({
      taskId: task.id,
      effectId: task.effectId,
      imageType: task.imageType,
      route: task.route,
      prompt: task.prompt,
      options: task.options,
      seed: task.seed,
    })
    .from(image)
    .innerJoin(task, eq(task.id, image.taskId))
    .where(and(eq(image.id, imageId), eq(image.userId, userId)));
  const found = rows[0];
  if (!found) return null;
  const inputs = await db
    .select({
      id: upload.id,
      width: upload.width,
      height: upload.height,
      deletedAt: upload.deletedAt,
      keepUntil: upload.keepUntil,
    })
    .from(taskInput)
    .innerJoin(upload, eq(upload.id, taskInput.uploadId))
    .where(and(eq(taskInput.taskId, found.taskId), eq(upload.userId, userId)))
    .orderBy(asc(taskInput.position));
  return { ...found, inputs };
}

export async function resultOriginals(
  db: Db,
  userId: string,
  imageId: string,
): Promise<ResultOriginals | null> {
  const src = await resultSource(db, userId, imageId);
  if (!src) return null;
  const kept = src.inputs.length > 0 && src.inputs.every((i) => i.deletedAt === null);
  const until = src.inputs.map((i) => i.keepUntil?.getTime()).filter((t): t is number => t !== undefined);
  return {
    imageId,
    effectId: src.effectId,
    kept,
    keptUntil: kept && until.length ? new Date(Math.min(...until)).toISOString() : null,
    originals: kept
      ? src.inputs.map((i) => ({ id: i.id, url: uploadPath(i.id), width: i.width, height: i.height }))
      : [],
  };
}

export const rerunBodySchema = z
  .object({ turnstileToken: z.string().max(4096).nullable().optional() })
  .strict();

export const originalsGone = () =>
  new AppError(
    "CONFLICT",
    "The original photos of this result are no longer kept, so it cannot be made again. Turn on “Keep my original photos for 30 days” for future results.",
    { reason: "originalsGone" },
  );

/**
 * Submits the result's request again: a new task (a new charge) with the same effect,
 * options, prompt and seed on the same originals (a text-to-image result has none and needs
 * none). Null when the result is not the user's.
 */
export async function rerunResult(
  deps: GenerateDeps,
  input: {
    userId: string;
    imageId: string;
    body: unknown;
    idempotencyKey?: string;
    ip?: string;
    hostname?: string;
  },
): Promise<{ taskIds: string[] } | null> {
  const body = rerunBodySchema.safeParse(input.body ?? {});
  if (!body.success) throw new AppError("VALIDATION", "The body may hold only turnstileToken.");
  const src = await resultSource(deps.db, input.userId, input.imageId);
  if (!src) return null;
  const fromText = src.effectId === TEXT_TO_IMAGE_ID;
  if (!fromText && (src.inputs.length === 0 || src.inputs.some((i) => i.deletedAt !== null)))
    throw originalsGone();
  if (isFreeForm(src.effectId)) {
    return generate(deps, {
      userId: input.userId,
      route: generateRouteOf(src.route),
      payload: {
        prompt: src.prompt,
        dimension: typeof src.options.aspectRatio === "string" ? src.options.aspectRatio : "auto",
        image_urls: src.inputs.map((i) => uploadPath(i.id)),
        num_images: 1,
        turnstileToken: body.data.turnstileToken ?? null,
        // The same tier the result was made with (the route's own, or the model chosen).
        model: Object.entries(GENERAL_MODELS).find(([, tier]) => tier === routeTier(src.route))![0],
        seed: src.seed,
      },
      idempotencyKey: input.idempotencyKey,
      ip: input.ip,
      hostname: input.hostname,
    });
  }
  return submitGeneration(deps, {
    userId: input.userId,
    route: src.route === "v2" ? "v2" : "v1",
    payload: {
      prompt: src.prompt,
      image_urls: src.inputs.map((i) => uploadPath(i.id)),
      num_images: "1",
      turnstileToken: body.data.turnstileToken ?? null,
      imageType: src.imageType,
      options: src.options,
    },
    idempotencyKey: input.idempotencyKey,
    ip: input.ip,
    hostname: input.hostname,
    seed: src.seed,
  });
}

/** The generic route a free-form task was made on ("create-v2:v1" → "create-v2"). */
function generateRouteOf(route: string): GenerateRoute {
  const name = route.split(":")[0]!;
  return Object.hasOwn(GENERATE_ROUTES, name) ? (name as GenerateRoute) : "create";
}
