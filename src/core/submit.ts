import { createHash } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/adapters/db/client";
import type { ObjectStorage } from "@/adapters/storage/types";
import type { EngineImage } from "@/core/ports/renderer";
import { task, taskInput } from "@/adapters/db/schema";
import { getEffectByImageType, MOOD_PROMPT_MAX, type Effect } from "./catalogue";
import { spendCreditsTx } from "./credits";
import { AppError, Messages } from "./errors";
import { newId, newSeed } from "./ids";
import type { SubmitGate } from "./submit-gate";
import { parseUploadUrls, readUploads, requireOwnUploads } from "./uploads";

/** The spec's submit payload, plus our `options` object. */
export const submitPayloadSchema = z.object({
  prompt: z
    .string()
    .max(MOOD_PROMPT_MAX, `The prompt may be at most ${MOOD_PROMPT_MAX} characters`)
    .default(""),
  image_urls: z.array(z.string().max(2048)).max(50, "Too many images in one request"),
  num_images: z
    .union([z.literal("1"), z.literal(1)], {
      error: 'num_images must be "1"',
    })
    .default("1"),
  turnstileToken: z.string().max(4096).nullable().optional(),
  imageType: z.string().min(1, "imageType is required").max(200),
  options: z.record(z.string(), z.unknown()).optional(),
});
export type SubmitPayload = z.input<typeof submitPayloadSchema>;

/**
 * An effect's input rules beyond the catalogue's (a face found, facing the camera...),
 * checked on the images themselves before any credit is charged. The engine implements
 * it (in its worker threads); `check` rejects with an {@link InputRefusal}.
 */
export interface InputRules {
  /** Whether the effect has such rules (others skip reading their images). */
  appliesTo(effectId: string): boolean;
  check(request: {
    effectId: string;
    images: EngineImage[];
    options: Record<string, unknown>;
    prompt: string;
  }): Promise<void>;
}

/** What InputRules.check rejects with: the user's reason and its message code. */
export class InputRefusal extends Error {
  constructor(
    readonly reason: string,
    readonly code: string,
  ) {
    super(reason);
    this.name = "InputRefusal";
  }
}

export interface SubmitDeps {
  db: Db;
  gate: SubmitGate;
  storage: ObjectStorage;
  inputRules: InputRules;
  /** Origins whose absolute upload URLs are accepted (our own). */
  allowedOrigins: string[];
  taskTimeoutSeconds: number;
  /** Called after commit with the new task ids, to enqueue and announce them. */
  onCreated(tasks: Array<{ id: string; userId: string; credits: number }>): Promise<void>;
}

export interface SubmitInput {
  userId: string;
  route: "v1" | "v2";
  payload: unknown;
  /** Idempotency-Key header, if the client sent one. */
  idempotencyKey?: string;
  /** The caller's address and the host it asked for (passed to the bot-check). */
  ip?: string;
  hostname?: string;
}

const PG_UNIQUE_VIOLATION = "23505";

function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: string }).code === PG_UNIQUE_VIOLATION) return true;
  }
  return false;
}

function firstIssue(error: z.ZodError): string {
  return error.issues[0]?.message ?? "Invalid request";
}

/** Splits the uploads into the tasks the effect's input rule asks for. */
function planTasks(effect: Effect, uploadIds: string[]): string[][] {
  if (uploadIds.length === 0)
    throw new AppError("VALIDATION", Messages.noImages, undefined, { key: "noImages" });
  if (effect.input.mode === "each") return uploadIds.map((id) => [id]);
  const { min, max, describe } = effect.input;
  if (uploadIds.length < min || uploadIds.length > max) {
    const count = min === max ? `exactly ${min}` : `${min} to ${max}`;
    throw new AppError(
      "VALIDATION",
      `${effect.title} takes ${count} image${max > 1 ? "s" : ""}: ${describe}.`,
      { min, max },
      min === max
        ? { key: "imageCountExact", values: { n: min } }
        : { key: "imageCountRange", values: { min, max } },
    );
  }
  return [uploadIds];
}

/**
 * Creates the tasks of one submit. Every check runs before any charge; the charge, the
 * tasks and their inputs are written in one transaction, so a refused or failed request
 * leaves nothing behind. A repeat of the same request (same Idempotency-Key, or the same
 * payload while its task is still unfinished, as a double click sends) returns the
 * existing task ids and charges nothing.
 */
export async function submitGeneration(deps: SubmitDeps, input: SubmitInput): Promise<{ taskIds: string[] }> {
  const parsed = submitPayloadSchema.safeParse(input.payload);
  if (!parsed.success) throw new AppError("VALIDATION", firstIssue(parsed.error));
  const body = parsed.data;

  const effect = getEffectByImageType(body.imageType);
  if (!effect) throw new AppError("VALIDATION", `Unknown imageType "${body.imageType}"`);

  if (body.image_urls.length === 0)
    throw new AppError("VALIDATION", Messages.noImages, undefined, { key: "noImages" });
  const uploadIds = parseUploadUrls(body.image_urls, deps.allowedOrigins);

  const options = effect.options.safeParse(body.options ?? {});
  if (!options.success) {
    // Each option's refusal has its own message key (rightsConfirmed, adultConsent, edges…).
    const field = String(options.error.issues[0]?.path[0] ?? "options");
    throw new AppError("VALIDATION", firstIssue(options.error), { field }, { key: `option_${field}` });
  }

  const prompt = body.prompt.trim();
  if (prompt && !effect.acceptsPrompt) {
    throw new AppError("VALIDATION", `${effect.title} does not take a prompt; leave it empty.`, undefined, {
      key: "promptNotAccepted",
    });
  }

  const groups = planTasks(effect, uploadIds);

  const idemBase = input.idempotencyKey?.trim() || null;
  const fingerprintBase = createHash("sha256")
    .update(JSON.stringify([input.route, effect.id, prompt, options.data, groups]))
    .digest("base64url");

  const planned = groups.map((group, i) => ({
    id: newId(),
    group,
    idempotencyKey: idemBase ? `${idemBase}#${i}` : null,
    dedupeKey: `${fingerprintBase}#${i}`,
  }));

  const findExisting = async () => {
    const ids: string[] = [];
    for (const p of planned) {
      const where = p.idempotencyKey
        ? and(eq(task.userId, input.userId), eq(task.idempotencyKey, p.idempotencyKey))
        : and(
            eq(task.userId, input.userId),
            eq(task.dedupeKey, p.dedupeKey),
            inArray(task.state, ["queued", "running"]),
          );
      const rows = await deps.db.select({ id: task.id }).from(task).where(where).limit(1);
      if (!rows[0]) return null;
      ids.push(rows[0].id);
    }
    return ids;
  };

  // A repeat answers with the tasks it already made, before any check that could now fail
  // (its originals may already be deleted, its bot-check token already spent).
  const existing = await findExisting();
  if (existing) return { taskIds: existing };

  // Plan caps and the bot-check: before anything is charged.
  await deps.gate.check({
    userId: input.userId,
    imageCount: uploadIds.length,
    token: body.turnstileToken ?? null,
    ip: input.ip,
    hostname: input.hostname,
  });
  await requireOwnUploads(deps.db, input.userId, uploadIds);
  if (deps.inputRules.appliesTo(effect.id)) {
    for (const group of groups) {
      const images = await readUploads(deps.db, deps.storage, group);
      try {
        await deps.inputRules.check({ effectId: effect.id, images, options: options.data, prompt });
      } catch (err) {
        if (!(err instanceof InputRefusal)) throw err;
        // Nothing is charged or written; the same wording as the render's refusal.
        throw new AppError("VALIDATION", err.reason, { code: err.code }, { key: `input_${err.code}` });
      }
    }
  }

  const totalCredits = effect.credits * planned.length;
  const deadlineAt = new Date(Date.now() + deps.taskTimeoutSeconds * 1000);
  try {
    await deps.db.transaction(async (tx) => {
      for (const p of planned) {
        // One charge per task, so each task's refund mirrors its own charge.
        const paid = await spendCreditsTx(tx, {
          userId: input.userId,
          amount: effect.credits,
          key: `charge:${p.id}`,
          taskId: p.id,
          note: effect.title,
        });
        if (!paid) {
          throw new AppError("INSUFFICIENT_CREDITS", Messages.insufficientCredits, {
            required: totalCredits,
          });
        }
        await tx.insert(task).values({
          id: p.id,
          userId: input.userId,
          effectId: effect.id,
          imageType: effect.imageType,
          route: input.route,
          prompt,
          options: options.data,
          seed: newSeed(),
          state: "queued",
          credits: effect.credits,
          idempotencyKey: p.idempotencyKey,
          dedupeKey: p.dedupeKey,
          deadlineAt,
        });
        await tx
          .insert(taskInput)
          .values(p.group.map((uploadId, position) => ({ taskId: p.id, position, uploadId })));
      }
    });
  } catch (err) {
    // A concurrent identical request won the race: answer with its tasks, charge nothing.
    if (isUniqueViolation(err)) {
      const again = await findExisting();
      if (again) return { taskIds: again };
      throw new AppError(
        "CONFLICT",
        "This request is already being processed. Please try again.",
        undefined,
        {
          key: "busy",
        },
      );
    }
    throw err;
  }

  const created = planned.map((p) => ({ id: p.id, userId: input.userId, credits: effect.credits }));
  await deps.onCreated(created);
  return { taskIds: created.map((c) => c.id) };
}
