import { openDatabase, type DatabaseHandle, type Db } from "@/adapters/db/client";
import { InProcessEventBus } from "@/adapters/events/in-process";
import type { TaskEventBus } from "@/adapters/events/types";
import { InProcessQueue } from "@/adapters/queue/in-process";
import type { JobQueue } from "@/adapters/queue/types";
import { LocalDiskStorage } from "@/adapters/storage/local-disk";
import type { ObjectStorage } from "@/adapters/storage/types";
import { createAuth, type Auth } from "@/auth/auth";
import { SessionCache } from "@/auth/session-cache";
import type { Env } from "@/config/env";
import { resolveAuthSecret } from "@/config/secret";
import { grantSignupCredits } from "@/core/credits";
import { UrlSigner } from "@/core/signed-urls";
import { PlanGate, type SubmitGate } from "@/core/submit-gate";
import { AltchaBotCheck } from "@/adapters/botcheck/altcha";
import { TurnstileBotCheck } from "@/adapters/botcheck/turnstile";
import { UsedTokenStore } from "@/adapters/botcheck/used-tokens";
import { StripeProvider } from "@/adapters/payments/stripe";
import { TestCheckoutProvider } from "@/adapters/payments/test-checkout";
import { parsePricing, type Pricing } from "@/config/pricing";
import type { BotCheck } from "@/core/botcheck";
import type { PaymentProvider } from "@/core/billing";
import {
  recoverTasks,
  runTask,
  sweepExpiredTasks,
  TaskStatusCache,
  type Renderer,
  type TaskDeps,
} from "@/core/tasks";
import { ImageRefusedError, sweepStaleUploads, type ImageSanitizer } from "@/core/uploads";
import { createEnginePool, type EnginePool } from "@/engine/pool";
import { sanitizeUpload, UploadRejectedError } from "@/engine/sanitize-upload";
import { createLogger, type Logger } from "./logger";

/**
 * The composition root: picks each adapter once from validated configuration and wires
 * the domain to them. Everything the API and the worker use comes from here.
 */
export interface Services {
  env: Env;
  log: Logger;
  database: DatabaseHandle;
  /** database.db, for domain functions that take `{ db, … }`. */
  db: Db;
  storage: ObjectStorage;
  events: TaskEventBus;
  queue: JobQueue;
  taskCache: TaskStatusCache;
  auth: Auth;
  sessions: SessionCache;
  signer: UrlSigner;
  sanitizer: ImageSanitizer;
  gate: SubmitGate;
  pricing: Pricing;
  botCheck: BotCheck;
  /** Set when the bot-check is ALTCHA (it serves challenges). */
  altcha: AltchaBotCheck | null;
  payments: PaymentProvider;
  /** Set when payments go through Stripe (it verifies webhooks). */
  stripe: StripeProvider | null;
  renderer: Renderer;
  taskDeps: TaskDeps;
  /** Origins whose absolute upload URLs submit accepts. */
  allowedOrigins: string[];
  /** Runs the maintenance sweeps once (timeouts, stale uploads). */
  sweep(): Promise<void>;
  /** Graceful stop: running jobs get graceMs to finish (default 10 s); the rest are recovered at next start. */
  close(graceMs?: number): Promise<void>;
}

export interface ServiceOverrides {
  /** Use this renderer instead of the engine pool (tests). */
  renderer?: Renderer;
  /** Do not start the sweeper timer (tests call sweep() themselves). */
  noSweeperTimer?: boolean;
  /** Embedded PGlite in memory instead of under DATA_DIR (fast test start). */
  pgliteInMemory?: boolean;
  /** Do not consume the queue (tests of crash recovery). */
  noWorker?: boolean;
}

export async function createServices(env: Env, overrides: ServiceOverrides = {}): Promise<Services> {
  const log = createLogger(env);
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: overrides.pgliteInMemory ? "memory://" : env.dataDir,
    onIdleError: (err) => log.warn({ err: err.message }, "idle database connection lost"),
  });
  const db = database.db;
  const storage = new LocalDiskStorage(env.dataDir);
  const events = new InProcessEventBus();
  const taskCache = new TaskStatusCache();
  events.subscribeAll((e) => taskCache.apply(e));
  const secret = resolveAuthSecret(env);
  const signer = new UrlSigner(secret);

  const auth = createAuth({
    db,
    env,
    secret,
    onUserCreated: async (userId) => {
      await grantSignupCredits(db, userId, env.SIGNUP_CREDITS);
    },
  });
  const sessions = new SessionCache(async (headers) => {
    const s = await auth.api.getSession({ headers });
    return s ? { id: s.user.id, email: s.user.email, name: s.user.name } : null;
  });

  const sanitizer: ImageSanitizer = {
    async sanitize(bytes) {
      try {
        return await sanitizeUpload(bytes, { maxPixels: env.MAX_IMAGE_PIXELS });
      } catch (err) {
        if (err instanceof UploadRejectedError) throw new ImageRefusedError(err.reason);
        throw err;
      }
    },
  };

  const pricing = parsePricing(env.PRICING_JSON);
  const usedTokens = new UsedTokenStore(db);
  const appHost = new URL(env.appUrl).hostname;
  const altcha =
    env.TURNSTILE_SECRET_KEY === undefined
      ? new AltchaBotCheck({
          secret,
          cost: env.ALTCHA_COST,
          maxCounter: env.ALTCHA_MAX_COUNTER,
          ttlSeconds: env.BOTCHECK_TTL_SECONDS,
          used: usedTokens,
        })
      : null;
  const botCheck: BotCheck =
    altcha ??
    new TurnstileBotCheck({
      secretKey: env.TURNSTILE_SECRET_KEY!,
      verifyUrl: env.TURNSTILE_VERIFY_URL,
      hostnames: [appHost],
      used: usedTokens,
    });
  const stripe =
    env.STRIPE_SECRET_KEY && env.STRIPE_WEBHOOK_SECRET
      ? new StripeProvider(env.STRIPE_SECRET_KEY, env.STRIPE_WEBHOOK_SECRET, env.STRIPE_API_URL)
      : null;
  const payments: PaymentProvider = stripe ?? new TestCheckoutProvider();
  const gate = new PlanGate({ db, pricing, subscriberCap: env.SUBSCRIBER_UPLOAD_CAP, botCheck });

  let pool: EnginePool | undefined;
  const renderer: Renderer = overrides.renderer ?? (pool = createEnginePool({ threads: env.ENGINE_THREADS }));

  const taskDeps: TaskDeps = {
    db,
    storage,
    events,
    renderer,
    log: (msg, extra) => log.error(extra ?? {}, msg),
  };
  const queue = new InProcessQueue(env.ENGINE_THREADS, (taskId, err) =>
    log.error({ taskId, err: String(err) }, "task job failed"),
  );

  const sweep = async () => {
    const expired = await sweepExpiredTasks(taskDeps);
    const stale = await sweepStaleUploads(
      { db, storage },
      new Date(Date.now() - env.UPLOAD_TTL_MINUTES * 60_000),
    );
    await usedTokens.sweep();
    if (expired || stale) log.info({ expired, stale }, "sweep");
  };

  if (!overrides.noWorker) {
    // Tasks cut off by a restart run again (or fail with a refund) before new work.
    const pending = await recoverTasks(taskDeps);
    queue.start((taskId) => runTask(taskDeps, taskId));
    for (const id of pending) await queue.enqueue(id);
  }

  let timer: NodeJS.Timeout | undefined;
  if (!overrides.noSweeperTimer) {
    timer = setInterval(() => {
      sweep().catch((err) => log.error({ err: String(err) }, "sweep failed"));
    }, 15_000);
    timer.unref();
  }

  const allowedOrigins = [new URL(env.appUrl).origin];

  let closed = false;
  return {
    env,
    log,
    database,
    db,
    storage,
    events,
    queue,
    taskCache,
    auth,
    sessions,
    signer,
    sanitizer,
    gate,
    pricing,
    botCheck,
    altcha,
    payments,
    stripe,
    renderer,
    taskDeps,
    allowedOrigins,
    sweep,
    async close(graceMs) {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      await queue.close(graceMs);
      await pool?.close();
      await events.close();
      await database.close();
    },
  };
}
