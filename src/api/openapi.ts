import { z } from "zod";
import { EFFECT_CREDITS } from "@/core/catalogue-constants";
import { MAX_OUTPUTS_PER_REQUEST } from "@/core/free-form";
import { generatePayloadSchema } from "@/core/generate";
import { submitPayloadSchema } from "@/core/submit";
import { MAX_WAIT_SECONDS } from "./routes/img-compat";

/**
 * The OpenAPI 3.1 document of the public API, served at GET /api/openapi.json and rendered
 * at /api/docs. Request and answer schemas are generated from zod schemas with zod's own
 * `z.toJSONSchema` (JSON Schema 2020-12, which OpenAPI 3.1 uses as is): the payloads are
 * the very schemas the handlers parse with; the answers are described here. Every route of
 * the Hono app is listed except better-auth's `/api/auth/*` (its own API) and the operator
 * console's `/api/admin/*` (admin role only); src/api/openapi.test.ts checks both ways.
 */

type Json = Record<string, unknown>;

const taskId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/)
  .meta({ description: "A task id (from a submit answer)." });
const code = z
  .union([z.literal(0), z.literal(1), z.literal(2)])
  .meta({ description: "0 pending, 1 success, 2 failed (refunded)." });

const schemas: Record<string, z.ZodType> = {
  Error: z
    .object({
      code: z
        .string()
        .optional()
        .meta({ description: "Stable error code (VALIDATION, INSUFFICIENT_CREDITS…)." }),
      message: z.string().meta({ description: "English message, from the spec's wording where it has one." }),
      messageKey: z
        .string()
        .optional()
        .meta({ description: "Key of the translated message in `errors.server` (the client shows it)." }),
      messageValues: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
    })
    .meta({ description: "Every refusal. Nothing is charged for a refused request." }),
  SubmitPayload: submitPayloadSchema.meta({
    description: "The spec's nano-banana submit payload (section 3), plus the effect's `options`.",
  }),
  GeneratePayload: generatePayloadSchema,
  TaskIdBody: z.object({ taskId }),
  SubmitAnswer: z.object({
    message: z.string(),
    data: z.object({ taskIds: z.array(taskId) }),
  }),
  GenericSubmitAnswer: z.object({
    message: z.string(),
    data: z.object({ taskId, taskIds: z.array(taskId) }),
    taskId,
    taskIds: z.array(taskId),
  }),
  TaskResult: z.object({
    code,
    status: code,
    data: z.object({ imageUrl: z.string().nullable() }),
    failedReason: z.string().nullable(),
    failedCode: z.string().nullable().meta({ description: "errors.server.task_<code> translates it." }),
    progress: z
      .object({ value: z.number(), max: z.number(), queuePosition: z.number().optional() })
      .nullable(),
    etaSeconds: z.number().nullable(),
  }),
  CompatResult: z.object({
    code,
    status: code,
    message: z.string(),
    data: z.object({
      imageUrl: z.string().nullable(),
      imgAfterSrc: z.string().nullable(),
      url: z.string().nullable(),
    }),
    imageUrl: z.string().nullable(),
    imgAfterSrc: z.string().nullable(),
    url: z.string().nullable(),
    failedReason: z.string().nullable(),
    failedCode: z.string().nullable(),
    progress: z
      .object({ value: z.number(), max: z.number(), queuePosition: z.number().optional() })
      .nullable(),
    etaSeconds: z.number().nullable(),
  }),
  ImmediateAnswer: z
    .object({
      message: z.string().meta({
        description: '"Successfully generated {n} image(s)!" or "All image generation attempts failed".',
      }),
      code: z.union([z.literal(1), z.literal(2)]),
      status: z.union([z.literal(1), z.literal(2)]),
      data: z.object({
        taskId,
        taskIds: z.array(taskId),
        url: z.string().nullable(),
        imageUrl: z.string().nullable(),
        imgAfterSrc: z.string().nullable(),
        results: z.array(
          z.object({
            taskId,
            code,
            status: code,
            imageUrl: z.string().nullable(),
            failedReason: z.string().nullable(),
            failedCode: z.string().nullable(),
          }),
        ),
        succeeded: z.number().int(),
        failed: z.number().int(),
      }),
      url: z.string().nullable(),
      imageUrl: z.string().nullable(),
      failedReason: z.string().nullable(),
      failedCode: z.string().nullable(),
    })
    .meta({
      description:
        "Every image's outcome; code 1 when at least one was made (each failed one is refunded on its own), 2 when none was.",
    }),
};

function jsonSchema(schema: z.ZodType): Json {
  const out = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
  }) as Json;
  delete out.$schema;
  delete out.id;
  return out;
}

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const jsonContent = (name: string): Json => ({ "application/json": { schema: ref(name) } });

/** The errors every generation call shares (the spec's catalogue, section 8). */
const GENERATION_ERRORS: Record<string, string> = {
  "400":
    "Invalid payload, a refused photo or instruction, the bot-check failed (message contains “verification”), or this server has no generative engine for a free-form request. Nothing charged.",
  "401": "Please sign in to continue.",
  "402": "Insufficient credits (nothing charged).",
  "403": "Free plan: more images than its cap (upgrade).",
  "409": "The effect is switched off, or the same request is being processed.",
  "422": "The Idempotency-Key was used for another request.",
  "429": "Too many requests.",
};

interface Op {
  summary: string;
  description?: string;
  tag: string;
  /** Needs a signed-in session (the better-auth cookie). */
  auth?: boolean;
  body?: string;
  ok?: string;
  errors?: Record<string, string>;
  query?: Array<{ name: string; description: string; required?: boolean }>;
  headers?: Array<{ name: string; description: string }>;
  okDescription?: string;
  okType?: string;
}

const waitHeader = {
  name: "Prefer",
  description: `"wait" (or "wait=<seconds>"): answer when the images are ready, at most ${MAX_WAIT_SECONDS} s (and the task time limit); the answer is then an ImmediateAnswer.`,
};
const idemHeader = {
  name: "Idempotency-Key",
  description: "The same key again answers with the same tasks and charges nothing.",
};

const genericSubmit = (summary: string, route: string): Op => ({
  summary,
  description: `The generic generate call on the ${route} route. With imageType: that effect. Without: a free-form edit of the images, or text-to-image without any, on the configured AI backend's general model (fal, Gemini, OpenAI, Replicate or ComfyUI; refused with 400 "noGenerativeEngine" on a server with only the local engine; more photos than the engine takes in one edit, e.g. three on ComfyUI's built-in workflows, refused with 400 "tooManyInputImages"). Each image is charged ${EFFECT_CREDITS} credits in one transaction (at most ${MAX_OUTPUTS_PER_REQUEST} per request).`,
  tag: "Other model routes",
  auth: true,
  body: "GeneratePayload",
  ok: "GenericSubmitAnswer",
  errors: { ...GENERATION_ERRORS, "504": "With Prefer: wait: not ready in time (refunded)." },
  headers: [waitHeader, idemHeader],
});

const compatPoll = (summary: string): Op => ({
  summary,
  description: "Any of the caller's tasks (someone else's answers 404). Poll until code/status is 1 or 2.",
  tag: "Other model routes",
  auth: true,
  body: "TaskIdBody",
  ok: "CompatResult",
  errors: { "400": "taskId is required.", "401": "Please sign in to continue.", "404": "Task not found." },
});

/** Every documented route: "METHOD /path" (Hono's path syntax). */
export const OPERATIONS: Record<string, Op> = {
  "GET /api/health": { summary: "Liveness", tag: "Service" },
  "GET /api/ready": { summary: "Readiness (database, storage, queue)", tag: "Service" },
  "GET /api/metrics": { summary: "Prometheus metrics", tag: "Service", okType: "text/plain" },
  "GET /api/openapi.json": { summary: "This document", tag: "Service" },
  "GET /api/docs": { summary: "The API reference page (HTML)", tag: "Service", okType: "text/html" },
  "GET /api/docs/assets/:file": {
    summary: "The reference page's script and style sheet",
    tag: "Service",
    okType: "application/octet-stream",
  },
  "GET /api/effects": { summary: "The effect catalogue (ids, imageTypes, credits, options)", tag: "Effects" },
  "POST /api/upload": {
    summary: "Upload a photo (multipart `file`; PNG, JPG, JPEG, WebP up to 10 MB); answers its `url`",
    tag: "Uploads",
    auth: true,
  },
  "GET /api/uploads/:id": { summary: "One of the caller's uploads (signed URL)", tag: "Uploads", auth: true },
  "GET /api/images/:id": { summary: "A result image (owner or signed URL)", tag: "Results", auth: true },
  "GET /api/images": { summary: "The caller's results", tag: "Results", auth: true },
  "GET /api/credits": { summary: "The caller's credit balance", tag: "Credits", auth: true },
  "GET /api/credits/ledger": { summary: "The caller's credit ledger", tag: "Credits", auth: true },
  "GET /api/me": { summary: "The signed-in user, plan and balance", tag: "Account", auth: true },
  "POST /api/img/nano-banana/submit": {
    summary: "Submit an effect (the spec's call; v1 model)",
    tag: "Nano Banana",
    auth: true,
    body: "SubmitPayload",
    ok: "SubmitAnswer",
    errors: GENERATION_ERRORS,
    headers: [idemHeader],
  },
  "POST /api/img/nano-banana-v2/submit": {
    summary: "Submit an effect (v2 model); with Prefer: wait or `wait: true`, answers when ready",
    description: `Without waiting: SubmitAnswer. With \`Prefer: wait\` (or \`"wait": true\` in the body): the request is held until the images are ready (at most ${MAX_WAIT_SECONDS} s) and answers an ImmediateAnswer (data.results[].imageUrl, data.imageUrl); past the wait, the tasks are refunded and the answer is 504.`,
    tag: "Nano Banana",
    auth: true,
    body: "SubmitPayload",
    ok: "SubmitAnswer",
    errors: { ...GENERATION_ERRORS, "504": "Generation timeout (refunded)." },
    headers: [waitHeader, idemHeader],
  },
  "POST /api/img/nano-banana/taskResult": {
    summary: "Poll a task",
    tag: "Nano Banana",
    auth: true,
    body: "TaskIdBody",
    ok: "TaskResult",
    errors: { "400": "taskId is required.", "401": "Please sign in to continue.", "404": "Task not found." },
  },
  "POST /api/img/nano-banana-v2/taskResult": {
    summary: "Poll a task (v2 route)",
    tag: "Nano Banana",
    auth: true,
    body: "TaskIdBody",
    ok: "TaskResult",
    errors: { "400": "taskId is required.", "401": "Please sign in to continue.", "404": "Task not found." },
  },
  "GET /api/img/nano-banana/taskEvents": {
    summary: "Server-sent events of one task (taskId) or several (taskIds=a,b)",
    tag: "Nano Banana",
    auth: true,
    okType: "text/event-stream",
    query: [
      { name: "taskId", description: "One task." },
      { name: "taskIds", description: "Several tasks, comma-separated." },
    ],
  },
  "GET /api/img/nano-banana-v2/taskEvents": {
    summary: "Server-sent events (v2 route)",
    tag: "Nano Banana",
    auth: true,
    okType: "text/event-stream",
    query: [
      { name: "taskId", description: "One task." },
      { name: "taskIds", description: "Several tasks, comma-separated." },
    ],
  },
  "POST /api/img/create": {
    ...genericSubmit("Generate and answer when ready (reads data.url)", "create (v1 model)"),
    ok: "ImmediateAnswer",
    headers: [idemHeader],
    errors: {
      ...GENERATION_ERRORS,
      "504": `Generation timeout: not ready within ${MAX_WAIT_SECONDS} s (or the task limit); refunded.`,
    },
  },
  "POST /api/img/create-v2": genericSubmit("Submit (create-v2; v2 model)", "create-v2 (v2 model)"),
  "POST /api/img/create-v2-result": compatPoll("Poll a create-v2 task"),
  "POST /api/img/create-result": compatPoll("Poll a task (the default result route)"),
  "POST /api/img/flux-kontext-v2/submit": genericSubmit(
    "Submit (flux-kontext-v2; v2 general model, not FLUX)",
    "flux-kontext-v2 (v2 model)",
  ),
  "POST /api/img/flux-kontext-v2/taskResult": compatPoll("Poll a flux-kontext-v2 task"),
  "POST /api/img/flux-kontext-dev-v2": genericSubmit(
    "Submit (flux-kontext-dev-v2; v1 general model, not FLUX)",
    "flux-kontext-dev-v2 (v1 model)",
  ),
  "POST /api/img/flux-kontext-dev-v2-result": compatPoll("Poll a flux-kontext-dev-v2 task"),
  "GET /api/img/result/:taskId": {
    summary: "The webhook-type read (?type=img): answers imgAfterSrc",
    tag: "Other model routes",
    auth: true,
    ok: "CompatResult",
    query: [{ name: "type", description: '"img" (the only type).' }],
    errors: {
      "400": "Invalid taskId or type.",
      "401": "Please sign in to continue.",
      "404": "Task not found.",
    },
  },
  "GET /api/pricing": { summary: "Credit packs and plans", tag: "Billing" },
  "GET /api/plan": { summary: "The caller's plan and upload cap", tag: "Billing", auth: true },
  "GET /api/subscription": { summary: "The caller's subscription", tag: "Billing", auth: true },
  "POST /api/subscription/cancel": { summary: "Cancel at period end", tag: "Billing", auth: true },
  "POST /api/subscription/resume": { summary: "Resume a cancelled subscription", tag: "Billing", auth: true },
  "POST /api/subscription/portal": { summary: "Stripe's billing portal", tag: "Billing", auth: true },
  "POST /api/checkout": { summary: "Start a checkout (pack or plan)", tag: "Billing", auth: true },
  "GET /api/checkout/:id": { summary: "A checkout's state", tag: "Billing", auth: true },
  "POST /api/checkout/test/:id/complete": {
    summary: "Complete a test checkout (TEST_CHECKOUT only)",
    tag: "Billing",
    auth: true,
  },
  "POST /api/checkout/test/:id/cancel": { summary: "Cancel a test checkout", tag: "Billing", auth: true },
  "POST /api/webhooks/stripe": { summary: "Stripe's signed webhooks", tag: "Webhooks" },
  "GET /api/botcheck/config": { summary: "Which bot-check the client shows", tag: "Bot-check" },
  "GET /api/botcheck/challenge": { summary: "An ALTCHA challenge", tag: "Bot-check" },
  "POST /api/providers/:id/webhook": {
    summary: "A provider's signed callbacks (fal, Replicate)",
    tag: "Webhooks",
  },
  "GET /api/account/export": {
    summary: "Download all of the caller's data (ZIP)",
    tag: "Account",
    auth: true,
  },
  "POST /api/account/delete": { summary: "Delete the caller's account", tag: "Account", auth: true },
  "GET /api/account/preferences": { summary: "Privacy preferences", tag: "Account", auth: true },
  "PUT /api/account/preferences": { summary: "Change privacy preferences", tag: "Account", auth: true },
  "GET /api/results/:id/originals": { summary: "A result's kept originals", tag: "Results", auth: true },
  "POST /api/results/:id/rerun": {
    summary: "Re-run a result through the normal submit",
    description:
      'The same effect, options, prompt and seed on the kept originals. A free-form result: the same instruction, dimension, model and seed through the generic generate call, on the configured AI backend (fal, Gemini, OpenAI, Replicate or ComfyUI; text-to-image needs no originals; none left: 400 "noGenerativeEngine"). Charged as a new submit.',
    tag: "Results",
    auth: true,
  },
  "GET /api/history": { summary: "The caller's results, filtered and paged", tag: "Results", auth: true },
  "GET /api/history/zip": { summary: "A batch of results as a ZIP", tag: "Results", auth: true },
  "DELETE /api/history/:id": { summary: "Delete a result for good", tag: "Results", auth: true },
  "POST /api/history/:id/share": { summary: "Make a public link to a result", tag: "Results", auth: true },
  "DELETE /api/history/:id/share": { summary: "Revoke a result's public link", tag: "Results", auth: true },
  "GET /api/share/:token/image": { summary: "A shared result's image (public)", tag: "Results" },
};

/** Hono's `/x/:id` as OpenAPI's `/x/{id}`, and the parameter names. */
function openapiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const out = path.replace(/:([A-Za-z_]+)/g, (_, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: out, params };
}

let cached: Json | null = null;

/** The document (built once). */
export function openApiDocument(): Json {
  if (cached) return cached;
  const paths: Record<string, Record<string, Json>> = {};
  for (const [key, op] of Object.entries(OPERATIONS)) {
    const [method, rawPath] = key.split(" ") as [string, string];
    const { path, params } = openapiPath(rawPath);
    const responses: Record<string, Json> = {
      "200": op.ok
        ? { description: "OK", content: jsonContent(op.ok) }
        : {
            description: op.okDescription ?? "OK",
            content: { [op.okType ?? "application/json"]: { schema: {} } },
          },
    };
    for (const [status, text] of Object.entries(
      op.errors ?? (op.auth ? { "401": "Please sign in to continue." } : {}),
    ))
      responses[status] = { description: text, content: jsonContent("Error") };
    const parameters: Json[] = [
      ...params.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } })),
      ...(op.query ?? []).map((q) => ({
        name: q.name,
        in: "query",
        required: q.required ?? false,
        description: q.description,
        schema: { type: "string" },
      })),
      ...(op.headers ?? []).map((h) => ({
        name: h.name,
        in: "header",
        required: false,
        description: h.description,
        schema: { type: "string" },
      })),
    ];
    const operation: Json = {
      operationId: `${method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, ch: string | undefined) => (ch ?? "").toUpperCase())}`,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [op.tag],
      ...(parameters.length ? { parameters } : {}),
      ...(op.body ? { requestBody: { required: true, content: jsonContent(op.body) } } : {}),
      responses,
      ...(op.auth ? { security: [{ session: [] }] } : { security: [] }),
    };
    (paths[path] ??= {})[method.toLowerCase()] = operation;
  }
  cached = {
    openapi: "3.1.0",
    info: {
      title: "photofx API",
      version: "1",
      description:
        "The JSON API of photofx. Generation calls take a signed-in session (the better-auth cookie from `/api/auth/*`, better-auth's own API) and, for free users, a bot-check token; every image costs 2 credits, charged at submit and refunded if it fails. State-changing calls with a session must come from the site's own origin. The operator console's `/api/admin/*` routes are not listed.",
    },
    servers: [{ url: "/" }],
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, jsonSchema(s)])),
      securitySchemes: {
        session: { type: "apiKey", in: "cookie", name: "better-auth.session_token" },
      },
    },
    paths,
  };
  return cached;
}

/** The Hono routes this document leaves out on purpose. */
export const UNDOCUMENTED = (path: string): boolean =>
  path.startsWith("/api/auth/") || path === "/api/admin" || path.startsWith("/api/admin/");
