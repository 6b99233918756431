import { createHash } from "node:crypto";
import { and, eq, gt, inArray, or } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "./db";
import { InputRefusal, type InputRules } from "./ports/input-rules";
import type { JobQueue } from "./ports/job-queue";
import type { Metrics } from "./ports/metrics";
import { isEffectEnabled, type SettingsPort } from "./ports/settings";
import type { ObjectStorage } from "./ports/storage";
import type { TaskEventBus } from "./ports/task-events";
import { task, taskInput } from "./schema";
import { getEffectByImageType, MOOD_PROMPT_MAX, type Effect } from "./catalogue";
import { spendCreditsTx } from "./credits";
import { AppError, Messages } from "./errors";
import { newId, newSeed } from "./ids";
import type { SubmitGate } from "./submit-gate";
import { enqueueCreated } from "./task-lifecycle";
import { loadUploads, parseUploadUrls, uploadGone } from "./uploads";

/** The same request again within this time is the second click of a double click: one task. */
const DOUBLE_CLICK_MS = 10_000;

/** The spec's submit payload, plus our `options` object. */
/** Control characters a prompt may not hold (tab and line breaks are fine): NUL breaks storage. */
const hasControl = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 127) return true;
  }
  return false;
};
export const PROMPT_CONTROL_MESSAGE =
  "The prompt contains characters that cannot be used. Please remove them.";

export const submitPayloadSchema = z.object({
  prompt: z
    .string()
    .max(MOOD_PROMPT_MAX, `The prompt may be at most ${MOOD_PROMPT_MAX} characters`)
    .refine((p) => !hasControl(p), PROMPT_CONTROL_MESSAGE)
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

export interface SubmitDeps {
  db: Db;
  gate: SubmitGate;
  storage: ObjectStorage;
  inputRules: InputRules;
  /** Origins whose absolute upload URLs are accepted (our own). */
  allowedOrigins: string[];
  taskTimeoutSeconds: number;
  /** Runtime settings: a switched-off effect is refused before anything else. */
  settings: SettingsPort;
  /** After commit, each new task is announced ("queued") and enqueued. */
  events: TaskEventBus;
  queue: JobQueue;
  metrics?: Metrics;
}

export interface SubmitInput {
  userId: string;
  /**
   * Which route made the task (stored with it): "v1" (nano-banana), "v2" (nano-banana-v2), or
   * a route of the generic generate call (`TASK_ROUTES` in generate.ts); it chooses the model tier.
   */
  route: string;
  payload: unknown;
  /** Idempotency-Key header, if the client sent one. */
  idempotencyKey?: string;
  /** The caller's address and the host it asked for (passed to the bot-check). */
  ip?: string;
  hostname?: string;
  /** The engine seed (a re-run of a result uses its seed); new tasks get a random one. */
  seed?: number;
  /** Images per photo (group): the generic generate call's num_images x batchSize (default 1). */
  copies?: number;
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
  if (!parsed.success) {
    const message = firstIssue(parsed.error);
    // Refused before the bot-check token is spent or anything is written.
    throw new AppError(
      "VALIDATION",
      message,
      undefined,
      message === PROMPT_CONTROL_MESSAGE ? { key: "promptControl" } : undefined,
    );
  }
  const body = parsed.data;

  const effect = getEffectByImageType(body.imageType);
  if (!effect) throw new AppError("VALIDATION", `Unknown imageType "${body.imageType}"`);
  if (!isEffectEnabled(deps.settings.current(), effect.id)) {
    throw new AppError(
      "EFFECT_DISABLED",
      Messages.effectDisabled,
      { effectId: effect.id },
      {
        key: "effectDisabled",
      },
    );
  }

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

  return createTasks(deps, input, {
    effectId: effect.id,
    imageType: effect.imageType,
    title: effect.title,
    credits: effect.credits,
    prompt,
    options: options.data,
    groups: planTasks(effect, uploadIds),
    uploadIds,
    token: body.turnstileToken ?? null,
    ...(input.copies !== undefined ? { copies: input.copies, fingerprintExtra: input.seed ?? null } : {}),
  });
}

/**
 * What one submit makes, once its payload is understood: one task per group of upload ids
 * (a group may be empty: text-to-image), `copies` times each (the generic generate call's
 * num_images), each charged `credits`.
 */
export interface TaskPlan {
  effectId: string;
  imageType: string;
  /** The ledger's label of each charge and refund. */
  title: string;
  credits: number;
  prompt: string;
  options: Record<string, unknown>;
  groups: string[][];
  /** Every upload the request names (the plan cap counts them). */
  uploadIds: string[];
  /** The bot-check token (free users). */
  token: string | null;
  /** Each group is rendered this many times (default 1), with seeds `seed`, `seed + 1`… */
  copies?: number;
  /** The caller's seed (default: random per task, or the input's seed). */
  seed?: number;
  /** Beyond the request's own fields, what makes two requests different (the model tier…). */
  fingerprintExtra?: unknown;
}

/**
 * Creates the tasks of a plan: repeats answer with their tasks, then the submit gate (plan
 * cap, bot-check), the uploads (the caller's, still live), the input rules and content
 * screen, and one transaction that charges each task and inserts it; then they are
 * enqueued. Refusals write and charge nothing.
 */
export async function createTasks(
  deps: SubmitDeps,
  input: Omit<SubmitInput, "payload" | "copies">,
  plan: TaskPlan,
): Promise<{ taskIds: string[] }> {
  const { prompt, groups, uploadIds } = plan;
  const copies = plan.copies ?? 1;
  const effect = { id: plan.effectId, imageType: plan.imageType, title: plan.title, credits: plan.credits };
  const options = { data: plan.options };
  const body = { turnstileToken: plan.token };
  const seedBase = plan.seed ?? input.seed;

  const idemBase = input.idempotencyKey?.trim() || null;
  const fingerprintBase = createHash("sha256")
    .update(
      JSON.stringify([
        input.route,
        effect.id,
        prompt,
        options.data,
        groups,
        ...(copies > 1 || plan.seed !== undefined || plan.fingerprintExtra !== undefined
          ? [copies, plan.seed ?? null, plan.fingerprintExtra ?? null]
          : []),
      ]),
    )
    .digest("base64url");

  const planned = groups
    .flatMap((group) => Array.from({ length: copies }, (_, copy) => ({ group, copy })))
    .map(({ group, copy }, i) => ({
      id: newId(),
      group,
      // Copies of one request differ by seed; a given seed is kept for the first copy.
      seed: seedBase === undefined ? newSeed() : (seedBase + copy) % 2 ** 31,
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
            // Still running, or made moments ago (a fast effect may already be done when the
            // second click of a double click gets here).
            or(
              inArray(task.state, ["queued", "running"]),
              gt(task.createdAt, new Date(Date.now() - DOUBLE_CLICK_MS)),
            ),
          );
      const rows = await deps.db
        .select({ id: task.id, dedupeKey: task.dedupeKey })
        .from(task)
        .where(where)
        .limit(1);
      if (!rows[0]) return null;
      // The key names one request: the same key with another body (another photo, effect,
      // prompt or options) is a client bug, not a repeat. Stripe answers the same way.
      if (p.idempotencyKey && rows[0].dedupeKey !== p.dedupeKey)
        throw new AppError(
          "IDEMPOTENCY_MISMATCH",
          "This Idempotency-Key was already used for a different request.",
          undefined,
          { key: "idempotencyMismatch" },
        );
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
    token: body.turnstileToken,
    ip: input.ip,
    hostname: input.hostname,
  });
  // The uploads must be the caller's and still live: a missing one is a 400, nothing charged.
  const own = await loadUploads(deps, uploadIds, { ownerId: input.userId });
  if (own.missing.length) throw uploadGone();
  if (deps.inputRules.appliesTo(effect.id)) {
    for (const group of groups) {
      if (!group.length) continue;
      const { images, missing } = await loadUploads(deps, group, { ownerId: input.userId, read: true });
      if (missing.length) throw uploadGone();
      try {
        await deps.inputRules.check({ effectId: effect.id, images, options: options.data, prompt });
      } catch (err) {
        if (!(err instanceof InputRefusal)) throw err;
        // Nothing is charged or written; the same wording as the render's refusal.
        throw new AppError("VALIDATION", err.reason, { code: err.code }, { key: `input_${err.code}` });
      }
    }
  }

  // The checks above take a moment (images are read and screened): a concurrent identical
  // request may have made its tasks meanwhile. Answer with those; charge nothing.
  const meanwhile = await findExisting();
  if (meanwhile) return { taskIds: meanwhile };

  const totalCredits = effect.credits * planned.length;
  // The tasks of one submit are one batch (its results download together as a ZIP).
  const batchId = newId();
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
          seed: p.seed,
          state: "queued",
          credits: effect.credits,
          idempotencyKey: p.idempotencyKey,
          dedupeKey: p.dedupeKey,
          batchId,
          deadlineAt,
        });
        if (p.group.length)
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
  await enqueueCreated(deps, created);
  return { taskIds: created.map((c) => c.id) };
}
