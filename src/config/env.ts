import path from "node:path";
import { z } from "zod";

/**
 * The one place where configuration is read. Every variable is validated here once at
 * start-up; an invalid value stops the process with a message naming the variable.
 * Unset values select the embedded defaults (PGlite, local disk, in-process queue,
 * local engine), so a fresh clone runs with no configuration at all.
 */
const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");

const positiveInt = z.coerce.number().int().positive();

export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  /** Public origin of the site, used for auth callbacks and absolute links. */
  APP_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  /** postgres://… selects that server; unset: an embedded PostgreSQL child in DATA_DIR/pg. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  /** Secret for sessions and signed file URLs; unset: a random one kept in DATA_DIR/auth-secret. */
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  SIGNUP_CREDITS: z.coerce.number().int().min(0).default(10),
  /** better-auth's per-IP rate limits on sign-in and sign-up (on in production). */
  AUTH_RATE_LIMIT: bool.optional(),
  /** smtp://user:pass@host:587 or smtps://…: mail goes through that server; unset: the outbox DATA_DIR/mail. */
  SMTP_URL: z
    .string()
    .max(2000)
    .regex(/^smtps?:\/\/[^\s]+$/, "must be an smtp:// or smtps:// URL")
    .optional(),
  /** Sender of every message: `Name <address>` or an address. */
  MAIL_FROM: z
    .string()
    .max(320)
    .regex(
      /^(?:[^<>\r\n"]{0,200}<[^<>\s@]+@[^<>\s@]+>|[^<>\s@]+@[^<>\s@]+)$/,
      "an address, or a name and an address in angle brackets",
    )
    .default("photofx <no-reply@photofx.local>"),
  /** required: e-mail/password accounts sign in only once their address is verified. Unset: required with SMTP_URL, else off. */
  EMAIL_VERIFICATION: z.enum(["required", "off"]).optional(),
  /** When the sign-up credits are granted. Unset: verified when EMAIL_VERIFICATION is required, else signup. */
  SIGNUP_CREDITS_ON: z.enum(["verified", "signup"]).optional(),
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  GITHUB_CLIENT_ID: z.string().min(1).optional(),
  GITHUB_CLIENT_SECRET: z.string().min(1).optional(),
  /** Minutes after which an upload never used by a task is deleted. */
  UPLOAD_TTL_MINUTES: positiveInt.default(60),
  /** Largest decoded image we accept, in pixels (decompression-bomb guard). */
  MAX_IMAGE_PIXELS: positiveInt.default(40_000_000),
  /** Seconds a task may take from submit before it fails with a refund (spec: 5 minutes). */
  TASK_TIMEOUT_SECONDS: positiveInt.default(300),
  /** Worker threads rendering images in this process. */
  ENGINE_THREADS: positiveInt.default(2),
  /**
   * MB one engine thread may hold (its heap plus the models' WebAssembly heaps, which never
   * shrink) before it is replaced by a fresh one after its task; 0 never replaces threads.
   */
  ENGINE_THREAD_MEMORY_MB: z.coerce.number().int().min(0).default(300),
  /**
   * Resident memory (MB) of the process running the engine threads (the server, or a worker
   * in scale-out) above which threads holding models are replaced after their task; 0 never.
   */
  ENGINE_PROCESS_MEMORY_MB: z.coerce.number().int().min(0).default(560),
  /** Seconds an idle engine thread (and its models) is kept before it exits. */
  ENGINE_IDLE_SECONDS: positiveInt.default(120),
  /**
   * Image engine: an id of the provider table (local, comfyui, fal, gemini, openai, replicate;
   * checked against it at start). Unset: comfyui if COMFYUI_URL is set, else fal if FAL_KEY is,
   * else gemini if GEMINI_API_KEY is, else local. OpenAI and Replicate keys never select themselves.
   */
  ENGINE: z
    .string()
    .regex(/^[a-z0-9-]+$/, "a provider id such as local, comfyui, fal, gemini, openai or replicate")
    .optional(),
  /** Per-effect engine, `effect-id=provider,…` or a JSON object (see docs/PROVIDERS.md). */
  ENGINE_OVERRIDES: z.string().optional(),
  /** Providers tried in order while the chosen one is unavailable (breaker open, spend cap); local always ends it. */
  ENGINE_FALLBACK: z.string().optional(),
  /** Longest one render may take at a hosted provider before it is cancelled. */
  ENGINE_RENDER_TIMEOUT_SECONDS: positiveInt.default(240),
  /** Attempts per provider HTTP call on 429/5xx (first included), and the backoff between them. */
  ENGINE_RETRY_ATTEMPTS: positiveInt.default(4),
  ENGINE_RETRY_BASE_MS: positiveInt.default(500),
  ENGINE_RETRY_MAX_MS: positiveInt.default(20_000),
  /** Consecutive provider failures that send effects to the fallback, and for how long. */
  ENGINE_BREAKER_THRESHOLD: positiveInt.default(5),
  ENGINE_BREAKER_COOLDOWN_SECONDS: positiveInt.default(60),
  /** Content safety: every input photo and every generative output is checked for nudity and sexual content. */
  NSFW_CHECK: bool.default(true),
  /** Refused at or above this probability of explicit content (NSFWJS porn + hentai). */
  NSFW_THRESHOLD: z.coerce.number().gt(0).max(1).default(0.7),
  FAL_KEY: z.string().min(1).optional(),
  /** Origin that replaces every fal host (tests' fake server). */
  FAL_BASE_URL: z.url().optional(),
  FAL_MODEL_V1: z.string().min(1).default("fal-ai/nano-banana/edit"),
  FAL_MODEL_V2: z.string().min(1).default("fal-ai/nano-banana-2/edit"),
  /** Cost of one image per route, and the daily cap (same currency; unset: no cap). */
  FAL_COST_V1: z.coerce.number().min(0).default(0.039),
  FAL_COST_V2: z.coerce.number().min(0).default(0.08),
  FAL_DAILY_CAP: z.coerce.number().min(0).optional(),
  /** First wait between two status polls, in ms (it grows to 5 s). */
  FAL_POLL_MS: positiveInt.default(500),
  /** Public URL of POST /api/providers/fal/webhook: set to receive results by webhook. */
  FAL_WEBHOOK_URL: z.url().optional(),
  /** Where fal publishes its webhook signing keys. */
  FAL_JWKS_URL: z.url().default("https://rest.alpha.fal.ai/.well-known/jwks.json"),
  GEMINI_API_KEY: z.string().min(1).optional(),
  /** Gemini API origin (tests' fake server). */
  GEMINI_BASE_URL: z.url().optional(),
  GEMINI_MODEL_V1: z.string().min(1).default("gemini-2.5-flash-image"),
  GEMINI_MODEL_V2: z.string().min(1).default("gemini-3.1-flash-image-preview"),
  GEMINI_COST_V1: z.coerce.number().min(0).default(0.039),
  GEMINI_COST_V2: z.coerce.number().min(0).default(0.067),
  GEMINI_DAILY_CAP: z.coerce.number().min(0).optional(),
  /** ComfyUI servers (comma-separated: a GPU fleet); set: renders on the operator's own GPUs. */
  COMFYUI_URL: z
    .string()
    .optional()
    .refine(
      (v) => !v || v.split(",").every((u) => /^https?:\/\/[^\s]+$/.test(u.trim())),
      "a comma-separated list of http(s) URLs",
    ),
  /** Bearer token sent to ComfyUI (for a reverse proxy in front of it). */
  COMFYUI_TOKEN: z.string().min(1).optional(),
  /** Folder of the operator's own workflows (`<effect-id>.json` replaces the built-in one). */
  COMFYUI_WORKFLOWS_DIR: z.string().min(1).optional(),
  /** Output size of the built-in workflows, in megapixels. */
  COMFYUI_MEGAPIXELS: z.coerce.number().min(0.25).max(4).default(1),
  /** Seconds an unreachable ComfyUI server is skipped before it is tried again. */
  COMFYUI_DOWN_SECONDS: positiveInt.default(30),
  /** Cost of one image (your GPU's running cost, for the spend cap) and the daily cap. */
  COMFYUI_COST: z.coerce.number().min(0).default(0),
  COMFYUI_DAILY_CAP: z.coerce.number().min(0).optional(),
  /** OpenAI key: renders through the Images API's edits (never selected by the key alone). */
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.url().default("https://api.openai.com"),
  OPENAI_IMAGE_MODEL: z.string().min(1).default("gpt-image-1"),
  /** Cost of one image and the daily cap (see OpenAI's pricing for the model and size). */
  OPENAI_COST: z.coerce.number().min(0).default(0.063),
  OPENAI_DAILY_CAP: z.coerce.number().min(0).optional(),
  /** Replicate token: renders through Replicate's predictions (never selected by the token alone). */
  REPLICATE_API_TOKEN: z.string().min(1).optional(),
  REPLICATE_BASE_URL: z.url().default("https://api.replicate.com"),
  /** `owner/name` or `owner/name:version`; the default's weights are Apache-2.0 (Qwen-Image-Edit-2509). */
  REPLICATE_MODEL: z.string().min(1).default("qwen/qwen-image-edit-plus"),
  /** Text-to-image model (free-form requests without a photo); Qwen-Image's weights are Apache-2.0. */
  REPLICATE_TEXT_MODEL: z.string().min(1).default("qwen/qwen-image"),
  REPLICATE_COST: z.coerce.number().min(0).default(0.03),
  REPLICATE_DAILY_CAP: z.coerce.number().min(0).optional(),
  /** Webhook mode: the public URL of POST /api/providers/replicate/webhook and the signing secret (whsec_…). */
  REPLICATE_WEBHOOK_URL: z.url().optional(),
  REPLICATE_WEBHOOK_SECRET: z.string().startsWith("whsec_").optional(),
  /** Seconds a signed file URL stays valid. */
  SIGNED_URL_TTL_SECONDS: positiveInt.default(3600),
  SUPPORT_EMAIL: z.email().default("support@photofx.local"),
  /**
   * Addresses whose accounts become admins of the console (/admin) at sign-in, comma-separated;
   * only once the address is verified (src/core/admin/roles.ts).
   */
  ADMIN_EMAILS: z
    .string()
    .max(4000)
    .refine(
      (v) => v.split(",").every((s) => !s.trim() || z.email().safeParse(s.trim()).success),
      "a comma-separated list of e-mail addresses",
    )
    .optional(),
  /** Prices of credit packs and plans (JSON, see src/config/pricing.ts); unset: the defaults there. */
  PRICING_JSON: z.string().optional(),
  /** Images per submit for subscribers (the free plan's cap is the spec's 2). */
  SUBSCRIBER_UPLOAD_CAP: positiveInt.default(10),
  /** Seconds a bot-check token (ALTCHA challenge) stays valid. */
  BOTCHECK_TTL_SECONDS: positiveInt.default(600),
  /** ALTCHA proof-of-work: PBKDF2 iterations per attempt, and the largest secret counter. */
  ALTCHA_COST: positiveInt.default(1000),
  ALTCHA_MAX_COUNTER: positiveInt.default(5000),
  /** Both set: Cloudflare Turnstile replaces ALTCHA. */
  TURNSTILE_SITE_KEY: z.string().min(1).optional(),
  TURNSTILE_SECRET_KEY: z.string().min(1).optional(),
  TURNSTILE_VERIFY_URL: z.url().default("https://challenges.cloudflare.com/turnstile/v0/siteverify"),
  /** Both set: purchases go through Stripe Checkout instead of the built-in test checkout. */
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Stripe API origin (tests point it at a local fake). */
  STRIPE_API_URL: z.url().optional(),
  /**
   * Without Stripe: true offers the built-in test checkout (purchases complete with no payment,
   * labelled as test mode); false (the default) refuses purchases, so a server left without
   * Stripe never gives credits or plans away.
   */
  TEST_CHECKOUT: bool.default(false),
  /** redis://… selects BullMQ workers, Redis pub/sub for task events and Redis rate limits. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
    .optional(),
  /** BullMQ queue name (several deployments can share one Redis). */
  QUEUE_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,60}$/)
    .default("photofx-render"),
  /** Seconds a worker's job lock lasts without renewal: how soon a dead worker's job moves on. */
  QUEUE_LOCK_SECONDS: positiveInt.default(30),
  /** Jobs one worker process runs at once (default: ENGINE_THREADS). */
  WORKER_CONCURRENCY: positiveInt.optional(),
  /** Seconds a stopping worker (SIGTERM) gives its running jobs before handing them back to the queue. */
  WORKER_SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).default(30),
  /** S3_BUCKET set: S3-compatible storage (AWS S3, R2, MinIO) instead of DATA_DIR. */
  S3_BUCKET: z.string().min(1).optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  S3_ENDPOINT: z.url().optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: bool.optional(),
  /** Requests per minute per user and per IP (0 turns a limit off). */
  RATE_LIMIT_UPLOADS_PER_MINUTE: z.coerce.number().int().min(0).default(60),
  RATE_LIMIT_SUBMITS_PER_MINUTE: z.coerce.number().int().min(0).default(30),
  /** Live task-event streams (SSE) one user may hold open at once, per process (0: no cap). */
  SSE_MAX_STREAMS_PER_USER: z.coerce.number().int().min(0).default(4),
  /** Set: GET /api/metrics requires `Authorization: Bearer <token>`. */
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /** Test knob (fault tests kill a worker mid-render): a pause in ms before each local render. */
  ENGINE_DEBUG_DELAY_MS: z.coerce.number().int().min(0).default(0),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Trust X-Forwarded-* headers (behind a reverse proxy). */
  TRUST_PROXY: bool.default(false),
});

export type Env = z.infer<typeof envSchema> & {
  /** Resolved absolute data directory. */
  dataDir: string;
  /** Resolved origin (APP_URL or http://localhost:PORT). */
  appUrl: string;
  /** EMAIL_VERIFICATION resolved: required when SMTP_URL is set, unless set otherwise. */
  emailVerification: "required" | "off";
  /** SIGNUP_CREDITS_ON resolved: verified when verification is required, unless set otherwise. */
  signupCreditsOn: "verified" | "signup";
};

export class EnvError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join("\n")}`);
    this.name = "EnvError";
  }
}

/** Parses an environment (process.env by default). Throws EnvError naming each bad variable. */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  // Empty strings count as unset, as they do in most .env tooling.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = envSchema.safeParse(cleaned);
  if (!result.success) {
    throw new EnvError(result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`));
  }
  const env = result.data;
  const pairs: Array<[string, string]> = [
    ["GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET"],
    ["GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET"],
    ["TURNSTILE_SITE_KEY", "TURNSTILE_SECRET_KEY"],
    ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET"],
    ["S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"],
  ];
  for (const [a, b] of pairs) {
    if (Boolean(env[a as keyof typeof env]) !== Boolean(env[b as keyof typeof env])) {
      throw new EnvError([`${a} / ${b}: set both or neither`]);
    }
  }
  const emailVerification = env.EMAIL_VERIFICATION ?? (env.SMTP_URL ? "required" : "off");
  return {
    ...env,
    dataDir: path.resolve(env.DATA_DIR),
    appUrl: (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, ""),
    emailVerification,
    signupCreditsOn: env.SIGNUP_CREDITS_ON ?? (emailVerification === "required" ? "verified" : "signup"),
  };
}

let processEnv: Env | undefined;

/**
 * This process's validated configuration, parsed once. For code that has no Services at
 * hand: pages, SEO, the worker's entry point. server.ts validates the same variables at
 * start and stops on an invalid one, so in a running server this does not throw.
 */
export function getEnv(): Env {
  return (processEnv ??= parseEnv());
}

/**
 * ENGINE_DEBUG_DELAY_MS for the engine's worker threads, validated by the same schema
 * without parsing the rest of the environment (a thread needs this one value).
 */
export function engineDebugDelayMs(source: Record<string, string | undefined> = process.env): number {
  return envSchema.shape.ENGINE_DEBUG_DELAY_MS.parse(source.ENGINE_DEBUG_DELAY_MS || undefined);
}
