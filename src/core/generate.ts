import { z } from "zod";
import { EFFECT_CREDITS } from "./catalogue-constants";
import { AppError, Messages } from "./errors";
import {
  asksForSexualContent,
  FREE_FORM_EDIT_ID,
  FREE_FORM_PROMPT_MAX,
  FREE_FORM_TITLE,
  GENERAL_MODELS,
  GENERATE_ROUTES,
  MAX_OUTPUTS_PER_REQUEST,
  parseDimension,
  TEXT_TO_IMAGE_ID,
  type GenerateRoute,
} from "./free-form";
import { createTasks, PROMPT_CONTROL_MESSAGE, submitGeneration, type SubmitDeps } from "./submit";
import { failTask, TaskReasons, type TaskDeps } from "./task-lifecycle";
import { getTaskResult, type TaskResultAnswer } from "./task-status";
import { followTasks, type TaskStreamDeps } from "./task-stream";
import { parseUploadUrls } from "./uploads";

/**
 * The spec's generic generate call and the other model routes' answers (issue 19), on the
 * one task system: the same ledger, idempotency, bot-check, caps and ownership as the
 * nano-banana pair. With `imageType`, the named effect renders (as on nano-banana/submit);
 * without it, a free-form instruction edit of the given photos or text-to-image, on the
 * configured AI backend's general model (free-form.ts). Every image is one task charged
 * EFFECT_CREDITS in the submit's one transaction and refunded on its own if it fails.
 */

/** Control characters an instruction may not hold (tab and line breaks are fine), as on submit. */
const hasControl = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 127) return true;
  }
  return false;
};

/** A count sent as a number or a numeric string ("1", as the spec's client sends num_images). */
const count = (what: string) =>
  z
    .union([z.number(), z.string().regex(/^\d{1,3}$/, `${what} must be a whole number`)])
    .transform(Number)
    .pipe(
      z
        .number()
        .int(`${what} must be a whole number`)
        .min(1, `${what} must be at least 1`)
        .max(MAX_OUTPUTS_PER_REQUEST, `${what} may be at most ${MAX_OUTPUTS_PER_REQUEST}`),
    );

/** The spec's generic generate payload (section 7), with what each field means. */
export const generatePayloadSchema = z.object({
  prompt: z
    .string()
    .max(FREE_FORM_PROMPT_MAX, `The prompt may be at most ${FREE_FORM_PROMPT_MAX} characters`)
    .refine((p) => !hasControl(p), PROMPT_CONTROL_MESSAGE)
    .default("")
    .meta({
      description:
        "Without imageType: the instruction (an edit of the images, or the image to create when none is sent); required. With imageType: the effect's optional mood note (only effects that take one).",
    }),
  dimension: z.string().max(32).optional().meta({
    description:
      'Output shape: an aspect ratio ("16:9") or a size ("1024x768"), read as the nearest of 21:9, 16:9, 3:2, 4:3, 5:4, 1:1, 4:5, 3:4, 2:3, 9:16; "auto" or omitted keeps the photo\'s shape (square for text-to-image). Free-form only; effects choose their own shape.',
  }),
  image_urls: z
    .array(z.string().max(2048))
    .max(50, "Too many images in one request")
    .default([])
    .meta({ description: "URLs of the caller's uploads (POST /api/upload's `url`), in order." }),
  image_path: z.string().max(2048).nullable().optional().meta({
    description: "One more of the caller's upload URLs, added after image_urls (duplicates are ignored).",
  }),
  num_images: count("num_images")
    .default(1)
    .meta({
      description: `Images per request (1 to ${MAX_OUTPUTS_PER_REQUEST}); num_images x batchSize may be at most ${MAX_OUTPUTS_PER_REQUEST}. Each image is a task charged ${EFFECT_CREDITS} credits.`,
    }),
  batchSize: count("batchSize")
    .default(1)
    .meta({ description: "Multiplies num_images (the spec's client sends both); default 1." }),
  turnstileToken: z.string().max(4096).nullable().optional().meta({
    description: "The bot-check token (free users; subscribers send null).",
  }),
  model: z
    .string()
    .max(64)
    .nullable()
    .optional()
    .meta({
      description: `The general model tier: ${Object.keys(GENERAL_MODELS)
        .map((m) => `"${m}"`)
        .join(
          " or ",
        )} (the configured backend's v1 or v2 model; ComfyUI, OpenAI and Replicate have one general model for both); omitted: the route's. Ignored by the local engine.`,
    }),
  imageType: z.string().min(1).max(200).nullable().optional().meta({
    description:
      "An effect's imageType (nano-banana-lora-<id>, see GET /api/effects): renders that effect instead of a free-form request.",
  }),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .nullable()
    .optional()
    .meta({
      description:
        "Seed of the first image (the next ones use seed+1, seed+2…). The local engine, Gemini and ComfyUI (its sampler's seed) reproduce a result from it; fal and Replicate pass it on; OpenAI's Images API takes none, so its results vary.",
    }),
  options: z
    .record(z.string(), z.unknown())
    .optional()
    .meta({ description: "The effect's options (with imageType), as on nano-banana/submit." }),
  wait: z.boolean().optional().meta({
    description:
      "true (or the header Prefer: wait): answer when the images are ready, within a bounded time, as POST /api/img/create does.",
  }),
});
export type GeneratePayload = z.input<typeof generatePayloadSchema>;

export interface GenerateDeps extends SubmitDeps {
  /** Whether the configured engines can render an engine id (free-form needs a generative backend). */
  canRender(effectId: string): boolean;
  /** The most photos the planned engine takes in one render of an engine id (undefined: no limit known). */
  maxImages?(effectId: string): number | undefined;
}

export interface GenerateInput {
  userId: string;
  route: GenerateRoute;
  payload: unknown;
  idempotencyKey?: string;
  ip?: string;
  hostname?: string;
}

function refuse(message: string, key: string, values?: Record<string, string | number>): AppError {
  return new AppError("VALIDATION", message, undefined, { key, ...(values ? { values } : {}) });
}

/** Message keys of the payload's refusals that have one (the others are English only, as zod says them). */
const KEYED: Array<[RegExp, string]> = [
  [new RegExp(`^${PROMPT_CONTROL_MESSAGE.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`), "promptControl"],
  [/^(num_images|batchSize) may be at most/, "tooManyOutputs"],
];

/**
 * Creates the tasks of one generic generate call (every check before any charge; the
 * charge of every image in one transaction). Returns their ids, in order.
 */
export async function generate(deps: GenerateDeps, input: GenerateInput): Promise<{ taskIds: string[] }> {
  const parsed = generatePayloadSchema.safeParse(input.payload);
  if (!parsed.success) {
    const message = parsed.error.issues[0]?.message ?? "Invalid request";
    const key = KEYED.find(([re]) => re.test(message))?.[1];
    if (key === "tooManyOutputs")
      throw refuse(message, key, { max: MAX_OUTPUTS_PER_REQUEST, credits: EFFECT_CREDITS });
    throw new AppError("VALIDATION", message, undefined, key ? { key } : undefined);
  }
  const body = parsed.data;
  const outputs = body.num_images * body.batchSize;
  if (outputs > MAX_OUTPUTS_PER_REQUEST)
    throw refuse(
      `At most ${MAX_OUTPUTS_PER_REQUEST} images per request (num_images x batchSize).`,
      "tooManyOutputs",
      { max: MAX_OUTPUTS_PER_REQUEST, credits: EFFECT_CREDITS },
    );

  let tier: "v1" | "v2" | null = null;
  if (body.model && body.model !== "auto" && body.model !== "default") {
    tier = (GENERAL_MODELS as Record<string, "v1" | "v2">)[body.model] ?? null;
    if (!tier)
      throw refuse(
        `Unknown model "${body.model}". Choose ${Object.keys(GENERAL_MODELS).join(" or ")}, or leave it out.`,
        "unknownModel",
        { models: Object.keys(GENERAL_MODELS).join(", ") },
      );
  }
  const route = tier && tier !== GENERATE_ROUTES[input.route] ? `${input.route}:${tier}` : input.route;
  const urls = [...new Set([...body.image_urls, ...(body.image_path ? [body.image_path] : [])])];
  const submit = {
    userId: input.userId,
    route,
    idempotencyKey: input.idempotencyKey,
    ip: input.ip,
    hostname: input.hostname,
    ...(body.seed != null ? { seed: body.seed } : {}),
  };

  if (body.imageType) {
    // An effect, exactly as nano-banana/submit renders it (its rules, options, one task per photo).
    return submitGeneration(deps, {
      ...submit,
      copies: outputs,
      payload: {
        prompt: body.prompt,
        image_urls: urls,
        turnstileToken: body.turnstileToken,
        imageType: body.imageType,
        ...(body.options ? { options: body.options } : {}),
      },
    });
  }

  const effectId = urls.length ? FREE_FORM_EDIT_ID : TEXT_TO_IMAGE_ID;
  if (!deps.canRender(effectId)) {
    // No generative backend (the local engine renders effects only): refused, nothing charged.
    if (effectId === TEXT_TO_IMAGE_ID && deps.canRender(FREE_FORM_EDIT_ID))
      throw new AppError(
        "BAD_REQUEST",
        "This server's image engine edits photos but cannot create an image from text alone. Please add an image.",
        { reason: "noTextToImage" },
        { key: "noTextToImage" },
      );
    throw new AppError(
      "BAD_REQUEST",
      "This server has no generative image engine, so it cannot follow free-form instructions. Please choose one of the effects (imageType).",
      { reason: "noGenerativeEngine" },
      { key: "noGenerativeEngine" },
    );
  }
  const prompt = body.prompt.trim();
  if (!prompt) throw refuse("Please describe the image you want.", "promptRequired");
  if (asksForSexualContent(prompt))
    throw refuse(
      "This service does not make nude, sexual or sexualised images. Please change your instruction.",
      "promptSexual",
    );
  const dimension = parseDimension(body.dimension);
  if (!dimension)
    throw refuse(
      'dimension must be an aspect ratio such as "16:9" or a size such as "1024x768".',
      "badDimension",
    );
  const uploadIds = parseUploadUrls(urls, deps.allowedOrigins);
  const maxImages = deps.maxImages?.(effectId);
  if (maxImages !== undefined && uploadIds.length > maxImages)
    throw refuse(
      `This server's image engine takes at most ${maxImages} photos in one edit. Please send fewer photos.`,
      "tooManyInputImages",
      { max: maxImages },
    );
  const aspectRatio = dimension === "auto" ? (uploadIds.length ? null : "1:1") : dimension;
  return createTasks(deps, submit, {
    effectId,
    imageType: effectId,
    title: FREE_FORM_TITLE[effectId]!,
    credits: EFFECT_CREDITS,
    prompt,
    options: aspectRatio ? { aspectRatio } : {},
    groups: [uploadIds],
    uploadIds,
    token: body.turnstileToken ?? null,
    copies: outputs,
    ...(body.seed != null ? { seed: body.seed } : {}),
    fingerprintExtra: route,
  });
}

/** Whether a generic call asked to be answered when its images are ready (`"wait": true`). */
export function bodyAsksToWait(payload: unknown): boolean {
  return !!payload && typeof payload === "object" && (payload as { wait?: unknown }).wait === true;
}

/**
 * RFC 7240's `Prefer: wait` (or `wait=<seconds>`): null when absent, else the seconds
 * asked (Infinity for a bare `wait`), bounded by the caller.
 */
export function preferWait(header: string | undefined): number | null {
  if (!header) return null;
  for (const part of header.split(",")) {
    const m = /^\s*wait\s*(?:=\s*"?(\d{1,6})"?)?\s*(?:;.*)?$/i.exec(part);
    if (m) return m[1] ? Number(m[1]) : Infinity;
  }
  return null;
}

/** One image's outcome in an immediate answer. */
export interface GenerateResult {
  taskId: string;
  code: 0 | 1 | 2;
  status: 0 | 1 | 2;
  imageUrl: string | null;
  failedReason: string | null;
  failedCode: string | null;
}

/**
 * The immediate answer (POST /api/img/create, a v2 submit with Prefer: wait): every image's
 * outcome, the first image's URL where the spec's clients read it (data.url, data.imageUrl,
 * imageUrl, url), and code/status 1 when at least one image was made (the others are
 * refunded; `data.failed` counts them), 2 with "All image generation attempts failed" when
 * none was.
 */
export interface ImmediateAnswer {
  message: string;
  code: 1 | 2;
  status: 1 | 2;
  data: {
    taskId: string;
    taskIds: string[];
    url: string | null;
    imageUrl: string | null;
    imgAfterSrc: string | null;
    results: GenerateResult[];
    succeeded: number;
    failed: number;
  };
  url: string | null;
  imageUrl: string | null;
  failedReason: string | null;
  failedCode: string | null;
}

export interface WaitDeps extends TaskStreamDeps {
  tasks: Pick<TaskDeps, "db" | "storage" | "events" | "metrics">;
}

/**
 * Holds until every task ends or `waitMs` passes; tasks still unfinished then are failed
 * with a refund (TaskReasons.timeout). If none was made, a 504 "Generation timeout"
 * (credits refunded); otherwise the immediate answer with each image's outcome.
 */
export async function awaitResults(
  deps: WaitDeps,
  userId: string,
  taskIds: string[],
  waitMs: number,
): Promise<ImmediateAnswer> {
  const answers = new Map<string, TaskResultAnswer>();
  for (const id of taskIds) {
    const first = await getTaskResult(deps, userId, id);
    if (!first) throw new AppError("NOT_FOUND", "Task not found");
    answers.set(id, first);
  }
  const pending = () => [...answers.values()].some((a) => a.code === 0);
  if (pending()) {
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), Math.max(0, waitMs));
    try {
      const firsts = new Map([...answers].filter(([, a]) => a.code === 0));
      for await (const item of followTasks(deps, userId, firsts, stop.signal, Math.max(1_000, waitMs))) {
        if (item.kind !== "answer") continue;
        answers.set(item.taskId, item.answer);
        if (!pending()) break;
      }
    } finally {
      clearTimeout(timer);
      stop.abort();
    }
  }
  let timedOut = false;
  for (const [id, a] of answers) {
    if (a.code !== 0) continue;
    // Past the wait: the task ends now, refunded; a task that finished meanwhile keeps its outcome.
    if (await failTask(deps.tasks, id, TaskReasons.timeout)) timedOut = true;
    const now = await getTaskResult(deps, userId, id);
    if (now) answers.set(id, now);
  }
  const results: GenerateResult[] = taskIds.map((taskId) => {
    const a = answers.get(taskId)!;
    return {
      taskId,
      code: a.code,
      status: a.status,
      imageUrl: a.data.imageUrl,
      failedReason: a.failedReason,
      failedCode: a.failedCode,
    };
  });
  const made = results.filter((r) => r.code === 1);
  // Nothing made in time (our wait ran out, or the tasks' own limit did): the spec's timeout.
  if (!made.length && (timedOut || results.every((r) => r.failedCode === TaskReasons.timeout.code)))
    throw new AppError(
      "TIMEOUT",
      `${Messages.timeout} Your credits have been refunded.`,
      { taskIds },
      { key: "waitTimeout" },
    );
  const firstUrl = made[0]?.imageUrl ?? null;
  const firstFailure = made.length ? null : results.find((r) => r.code === 2);
  const code = made.length ? 1 : 2;
  return {
    message: made.length
      ? `Successfully generated ${made.length} image(s)!`
      : "All image generation attempts failed",
    code,
    status: code,
    data: {
      taskId: taskIds[0]!,
      taskIds,
      url: firstUrl,
      imageUrl: firstUrl,
      imgAfterSrc: firstUrl,
      results,
      succeeded: made.length,
      failed: results.length - made.length,
    },
    url: firstUrl,
    imageUrl: firstUrl,
    failedReason: firstFailure?.failedReason ?? null,
    failedCode: firstFailure?.failedCode ?? null,
  };
}

/** The submit answer of the generic routes: every reading the spec's clients use. */
export function submittedAnswer(taskIds: string[]) {
  return { message: "Task submitted", data: { taskId: taskIds[0]!, taskIds }, taskId: taskIds[0]!, taskIds };
}

/**
 * The poll answer of the other model routes (create-result, create-v2-result,
 * flux-kontext-v2/taskResult, flux-kontext-dev-v2-result, result/{taskId}?type=img): the
 * nano-banana taskResult answer with the image's URL under every name the spec's client reads.
 */
export type CompatAnswer = Omit<TaskResultAnswer, "data"> & {
  data: { imageUrl: string | null; imgAfterSrc: string | null; url: string | null };
  imageUrl: string | null;
  imgAfterSrc: string | null;
  url: string | null;
  message: string;
};

export function compatAnswer(a: TaskResultAnswer): CompatAnswer {
  const url = a.data.imageUrl;
  return {
    ...a,
    data: { imageUrl: url, imgAfterSrc: url, url },
    imageUrl: url,
    imgAfterSrc: url,
    url,
    message:
      a.code === 1 ? "Success" : a.code === 2 ? (a.failedReason ?? Messages.generationFailed) : "Pending",
  };
}

/** The owner's compat answer for a task; null for a missing task or someone else's (404). */
export async function getCompatResult(
  deps: Parameters<typeof getTaskResult>[0],
  userId: string,
  taskId: string,
): Promise<CompatAnswer | null> {
  const a = await getTaskResult(deps, userId, taskId);
  return a ? compatAnswer(a) : null;
}
