import { openDatabase, type DatabaseHandle } from "@/adapters/db/client";
import type { Db } from "@/core/db";
import { InProcessEventBus } from "@/adapters/events/in-process";
import type { TaskEventBus } from "@/core/ports/task-events";
import { InProcessQueue } from "@/adapters/queue/in-process";
import type { JobQueue } from "@/core/ports/job-queue";
import { LocalDiskStorage } from "@/adapters/storage/local-disk";
import type { ObjectStorage } from "@/core/ports/storage";
import { createAuth, type Auth } from "@/auth/auth";
import { AuthMailer } from "@/auth/emails";
import { OutboxMail } from "@/adapters/mail/outbox";
import { SmtpMail } from "@/adapters/mail/smtp";
import type { MailPort } from "@/core/ports/mail";
import { SessionCache } from "@/auth/session-cache";
import { InProcessSessionRevocations, RedisSessionRevocations } from "@/adapters/events/session-revocations";
import type { SessionRevocation, SessionRevocationChannel } from "@/core/ports/session-revocations";
import type { Env } from "@/config/env";
import { resolveAuthSecret } from "@/config/secret";
import { grantSignupCredits } from "@/core/credits";
import { parseAdminEmails, syncAdminRole } from "@/core/admin/roles";
import { isSuspended } from "@/core/admin/users";
import { imagesToday } from "@/core/images";
import { UrlSigner } from "@/core/signed-urls";
import { PlanGate, type SubmitGate } from "@/core/submit-gate";
import type { InputRules } from "@/core/ports/input-rules";
import type { SettingsPort } from "@/core/ports/settings";
import type { SubmitDeps } from "@/core/submit";
import { AltchaBotCheck } from "@/adapters/botcheck/altcha";
import { TurnstileBotCheck } from "@/adapters/botcheck/turnstile";
import { DbUsedTokenStore, RedisUsedTokenStore, type UsedTokenStore } from "@/adapters/botcheck/used-tokens";
import { StripeProvider } from "@/adapters/payments/stripe";
import { TestCheckoutProvider } from "@/adapters/payments/test-checkout";
import { parsePricing, type Pricing } from "@/config/pricing";
import type { BotCheck } from "@/core/ports/botcheck";
import type { PaymentProvider } from "@/core/ports/payments";
import { EFFECTS } from "@/core/catalogue";
import {
  recoverTasks,
  runTask,
  staleQueuedTasks,
  sweepExpiredTasks,
  type TaskDeps,
} from "@/core/task-lifecycle";
import { RenderTimes, TaskStatusCache } from "@/core/task-status";
import { StreamSlots } from "@/core/task-stream";
import type { Renderer, RenderResult } from "@/core/ports/renderer";
import { ImageRefusedError, type ImageSanitizer } from "@/core/ports/image-sanitizer";
import { sweepStaleUploads } from "@/core/uploads";
import { sweepKeptOriginals } from "@/core/originals";
import { renewTestSubscriptions, settlePendingRefusals } from "@/core/billing";
import { createEnginePool, type EnginePool } from "@/engine/providers/local/pool";
import { poolInputRules } from "@/engine/providers/local/input-rules";
import type { WebhookReceiver } from "@/engine/providers/descriptor";
import { createRenderer } from "@/engine/providers/setup";
import type { ProviderRouter } from "@/engine/providers/router";
import { configuredProviders } from "@/engine/providers/table";
import { sanitizeUpload, UploadRejectedError } from "@/engine/sanitize-upload";
import { Redis } from "ioredis";
import { redisLimits } from "@/adapters/provider-limits/redis";
import { RedisEventBus } from "@/adapters/events/redis";
import { PrometheusMetrics } from "@/adapters/metrics/prometheus";
import { BullmqQueue } from "@/adapters/queue/bullmq";
import { RateLimits } from "@/adapters/rate-limits";
import { InProcessSettingsChannel, RedisSettingsChannel } from "@/adapters/settings/channel";
import { DbSettings } from "@/adapters/settings/db-settings";
import { S3Storage } from "@/adapters/storage/s3";
import { createLogger, type Logger } from "./logger";

/**
 * The composition root: picks each adapter once from validated configuration and wires
 * the domain to them. Everything the API and the worker use comes from here.
 */
/**
 * What a process does. "all": one machine, serving and rendering (embedded defaults).
 * "web": serves the API and pages, enqueues work for workers. "worker": renders only.
 */
export type ProcessRole = "all" | "web" | "worker";

export interface Services {
  env: Env;
  role: ProcessRole;
  metrics: PrometheusMetrics;
  rateLimits: RateLimits;
  log: Logger;
  database: DatabaseHandle;
  /** database.db, for domain functions that take `{ db, … }`. */
  db: Db;
  storage: ObjectStorage;
  events: TaskEventBus;
  queue: JobQueue;
  taskCache: TaskStatusCache;
  /** Typical render times per effect (the pending answer's estimate), from the database. */
  renderTimes: RenderTimes;
  auth: Auth;
  sessions: SessionCache;
  /**
   * Ends sessions in every process's session cache at once (this one, then the others
   * through Redis in scale-out). better-auth's hooks call it for sign-out and revocations;
   * call it after suspending an account (`{ userIds: [id] }`).
   */
  revokeSessions(revocation: SessionRevocation): Promise<void>;
  /** Open task-event streams per user (SSE_MAX_STREAMS_PER_USER; counted per process). */
  streamSlots: StreamSlots;
  signer: UrlSigner;
  sanitizer: ImageSanitizer;
  gate: SubmitGate;
  /** Effects' input rules (faces...), checked before submit charges. */
  inputRules: InputRules;
  pricing: Pricing;
  botCheck: BotCheck;
  /** Set when the bot-check is ALTCHA (it serves challenges). */
  altcha: AltchaBotCheck | null;
  payments: PaymentProvider;
  /** Set when payments go through Stripe (it verifies webhooks). */
  stripe: StripeProvider | null;
  renderer: Renderer;
  /** The provider router when a hosted provider is configured (the console reads its breakers), else null. */
  engineRouter: ProviderRouter | null;
  /**
   * The image providers this configuration may render with (any of them can be chosen by
   * ENGINE, an override, the fallback or the runtime settings), and whether photos stay on the
   * operator's hardware: the privacy policy names them, the home page's claims follow them.
   */
  imageProviders: ReadonlyArray<{ id: string; selfHosted: boolean }>;
  /** Set in fal's webhook mode (FAL_WEBHOOK_URL): verifies and routes fal's deliveries. */
  /** Signature-verified provider callbacks, by provider id (`POST /api/providers/:id/webhook`). */
  providerWebhooks: ReadonlyMap<string, WebhookReceiver>;
  taskDeps: TaskDeps;
  /** What submit needs (gate, storage, input rules, settings, queue, events...). */
  submitDeps: SubmitDeps;
  /** Runtime settings (effects on or off, engine per effect): database-backed, cached, shared across processes. */
  settings: SettingsPort;
  /** Origins whose absolute upload URLs submit accepts. */
  allowedOrigins: string[];
  /** Runs the maintenance sweeps once (timeouts, stale uploads). */
  sweep(): Promise<void>;
  /** Graceful stop: running jobs get graceMs to finish (default 10 s); the rest are recovered at next start. */
  close(graceMs?: number): Promise<void>;
}

export interface ServiceOverrides {
  /** Use this renderer instead of the engine pool (tests); hosted providers, if configured, still route. */
  renderer?: Renderer;
  /** Do not start the sweeper timer (tests call sweep() themselves). */
  noSweeperTimer?: boolean;
  /** Embedded PGlite in memory instead of the embedded PostgreSQL (fast test start). */
  pgliteInMemory?: boolean;
  /** PGlite on disk in DATA_DIR/db, the embedded default of earlier versions (tests of its migration). */
  pgliteOnDisk?: boolean;
  /** Do not consume the queue (tests of crash recovery). */
  noWorker?: boolean;
  /** Default: "all" on embedded defaults, "web" when REDIS_URL selects separate workers. */
  role?: ProcessRole;
}

export async function createServices(env: Env, overrides: ServiceOverrides = {}): Promise<Services> {
  const log = createLogger(env);
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: overrides.pgliteInMemory ? "memory://" : env.dataDir,
    pglite: overrides.pgliteOnDisk,
    onIdleError: (err) => log.warn({ err: err.message }, "idle database connection lost"),
    log: (level, msg, extra) => log[level](extra ?? {}, msg),
  });
  const db = database.db;
  const role: ProcessRole = overrides.role ?? (env.REDIS_URL ? "web" : "all");
  const redis = env.REDIS_URL ? new Redis(env.REDIS_URL, { maxRetriesPerRequest: null }) : undefined;
  redis?.on("error", (err) => log.warn({ err: err.message }, "redis connection error"));
  const storage: ObjectStorage = env.S3_BUCKET
    ? new S3Storage({
        bucket: env.S3_BUCKET,
        region: env.S3_REGION,
        endpoint: env.S3_ENDPOINT,
        accessKeyId: env.S3_ACCESS_KEY_ID,
        secretAccessKey: env.S3_SECRET_ACCESS_KEY,
        forcePathStyle: env.S3_FORCE_PATH_STYLE,
      })
    : new LocalDiskStorage(env.dataDir);
  const events: TaskEventBus = env.REDIS_URL
    ? new RedisEventBus(env.REDIS_URL, (err) => log.warn({ err: err.message }, "redis pub/sub error"))
    : new InProcessEventBus();
  // Runtime settings: the env's defaults (every effect on, the env's engine), overridden
  // by the database; a change is signalled to every process (Redis pub/sub in scale-out).
  const settingsChannel = env.REDIS_URL
    ? new RedisSettingsChannel(env.REDIS_URL, env.QUEUE_NAME, (err) =>
        log.warn({ err: err.message }, "redis settings channel error"),
      )
    : new InProcessSettingsChannel();
  const settings = await DbSettings.open({
    db,
    channel: settingsChannel,
    defaults: { effects: Object.fromEntries(EFFECTS.map((e) => [e.id, { enabled: true }])) },
    onError: (err) => log.warn({ err: String(err) }, "settings refresh failed"),
  });
  const taskCache = new TaskStatusCache();
  const renderTimes = new RenderTimes(db);
  events.subscribeAll((e) => taskCache.apply(e));
  const secret = resolveAuthSecret(env);
  const signer = new UrlSigner(secret);

  // A session that ends is dropped from every process's session cache at once: here, then
  // in the others through the revocation channel (Redis pub/sub in scale-out).
  // (A render-only worker serves no request: it needs no connection for it.)
  const revocations: SessionRevocationChannel =
    env.REDIS_URL && role !== "worker"
      ? new RedisSessionRevocations(env.REDIS_URL, env.QUEUE_NAME, (err) =>
          log.warn({ err: err.message }, "redis session revocation channel error"),
        )
      : new InProcessSessionRevocations();
  // Called by better-auth's hooks while serving requests, so after `sessions` below exists.
  const revokeSessions = async (revocation: SessionRevocation) => {
    sessions.evict(revocation);
    try {
      await revocations.publish(revocation);
    } catch (err) {
      log.warn({ err: String(err) }, "could not signal a session revocation to other processes");
    }
  };
  // Mail: an SMTP server when SMTP_URL is set, else the outbox (.eml files in DATA_DIR/mail).
  const smtp = env.SMTP_URL ? new SmtpMail(env.SMTP_URL, env.MAIL_FROM) : null;
  const mail: MailPort = smtp ?? new OutboxMail(env.dataDir, env.MAIL_FROM);
  const mailer = new AuthMailer(mail, (err, kind) =>
    log.error({ err: String(err), kind }, "could not send an account e-mail"),
  );
  const auth = createAuth({
    db,
    env,
    secret,
    grantSignupCredits: async (userId) => {
      await grantSignupCredits(db, userId, env.SIGNUP_CREDITS);
    },
    mailer,
    onSessionsEnded: revokeSessions,
    // The admin console (src/core/admin): a suspended account cannot sign in; ADMIN_EMAILS
    // grants the admin role to its verified addresses.
    isSuspended: (userId) => isSuspended(db, userId),
    syncRole: async (userId) => {
      await syncAdminRole(db, userId, parseAdminEmails(env.ADMIN_EMAILS));
    },
    // A changed user (new e-mail address) is reloaded by every process's session cache.
    onUserChanged: (userId) => revokeSessions({ userIds: [userId] }),
  });
  const sessions = new SessionCache(
    async (headers) => {
      const s = await auth.api.getSession({ headers });
      return s
        ? {
            user: { id: s.user.id, email: s.user.email, name: s.user.name },
            sessionId: s.session.id,
            token: s.session.token,
            expiresAt: new Date(s.session.expiresAt).getTime(),
          }
        : null;
    },
    { cookieName: (await auth.$context).authCookies.sessionToken.name },
  );
  const unsubscribeRevocations = revocations.subscribe((r) => sessions.evict(r));
  await revocations.ready();
  const streamSlots = new StreamSlots(env.SSE_MAX_STREAMS_PER_USER);

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
  // Spent bot-check tokens: in Redis when several processes share it, else in the database.
  const usedTokens: UsedTokenStore = redis ? new RedisUsedTokenStore(redis) : new DbUsedTokenStore(db);
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
  // Input rules and the content-safety screen run where the models live: the render pool,
  // or (a web process in scale-out, or tests with their own renderer) one thread started on
  // first need.
  let checkPool: EnginePool | undefined;
  const poolOptions = {
    memoryBudgetMb: env.ENGINE_THREAD_MEMORY_MB,
    processBudgetMb: env.ENGINE_PROCESS_MEMORY_MB,
    idleSeconds: env.ENGINE_IDLE_SECONDS,
  };
  const modelPool = () => pool ?? (checkPool ??= createEnginePool({ threads: 1, ...poolOptions }));
  const nsfwThreshold = env.NSFW_CHECK ? env.NSFW_THRESHOLD : null;
  // The local engine alone unless a hosted provider is configured (docs/PROVIDERS.md).
  const engine = await createRenderer(env, {
    // A web process in scale-out mode renders nothing: no engine threads there.
    local:
      overrides.renderer ??
      (role === "web"
        ? {
            id: "local",
            supports: () => false,
            render: () => Promise.reject(new Error("this web process does not render")),
          }
        : (pool = createEnginePool({ threads: env.ENGINE_THREADS, ...poolOptions }))),
    imagesToday: () => imagesToday(db),
    // The admin's engine per effect, read per render: a switch needs no restart.
    engineFor: (effectId) => settings.current().effects[effectId]?.engine,
    log: (level, msg, extra) => log[level](extra ?? {}, msg),
    // Every generative output is screened for explicit content (a flagged one fails, refunded).
    ...(nsfwThreshold !== null
      ? {
          screenOutput: (r: RenderResult) =>
            modelPool().screen({
              images: [{ bytes: r.bytes, mime: r.mime }],
              threshold: nsfwThreshold,
              kind: "output",
            }),
        }
      : {}),
    // Several processes share one spend cap and one breaker per provider through Redis;
    // a reservation of a process that dies mid-render lapses after the task's time limit.
    ...(redis
      ? {
          limits: redisLimits(redis, {
            prefix: env.QUEUE_NAME,
            reservationTtlMs:
              Math.max(env.TASK_TIMEOUT_SECONDS, env.ENGINE_RENDER_TIMEOUT_SECONDS) * 1000 + 60_000,
          }),
        }
      : {}),
  });
  const renderer: Renderer = engine.renderer;
  // The rules of the engine that will render run before charging: all of an effect's rules
  // when the local engine is planned, those every engine obeys otherwise (ADR 008).
  const inputRules: InputRules = poolInputRules(
    modelPool,
    nsfwThreshold,
    (effectId) => engine.router?.plannedEngine(effectId) ?? "local",
  );

  const onJobError = (taskId: string, err: unknown) =>
    log.error({ taskId, err: String(err) }, "task job failed");
  const queue: JobQueue = env.REDIS_URL
    ? new BullmqQueue(
        { url: env.REDIS_URL, maxRetriesPerRequest: null },
        env.QUEUE_NAME,
        env.WORKER_CONCURRENCY ?? env.ENGINE_THREADS,
        onJobError,
        env.QUEUE_LOCK_SECONDS * 1000,
      )
    : new InProcessQueue(env.ENGINE_THREADS, onJobError);
  const metrics = new PrometheusMetrics(() => queue.depth());
  const rateLimits = new RateLimits(
    { upload: env.RATE_LIMIT_UPLOADS_PER_MINUTE, submit: env.RATE_LIMIT_SUBMITS_PER_MINUTE },
    redis,
    env.QUEUE_NAME,
  );
  const taskDeps: TaskDeps = {
    db,
    storage,
    events,
    renderer,
    metrics,
    log: (msg, extra) => log.error(extra ?? {}, msg),
  };

  const allowedOrigins = [new URL(env.appUrl).origin];
  const submitDeps: SubmitDeps = {
    db,
    gate,
    storage,
    inputRules,
    allowedOrigins,
    taskTimeoutSeconds: env.TASK_TIMEOUT_SECONDS,
    settings,
    events,
    queue,
    metrics,
  };

  const sweep = async () => {
    // A settings signal missed (a Redis reconnect) is caught up here.
    await settings.refresh();
    const expired = await sweepExpiredTasks(taskDeps);
    const stale = await sweepStaleUploads(
      { db, storage },
      new Date(Date.now() - env.UPLOAD_TTL_MINUTES * 60_000),
    );
    // Originals kept at their owner's request ("keep for 30 days") whose time is up.
    const kept = await sweepKeptOriginals({ db, storage });
    await usedTokens.sweep();
    // Test-checkout renewals (no payment to wait for) and duplicate subscriptions still to refund.
    const renewed = await renewTestSubscriptions({ db, pricing, payments, testCheckout: env.TEST_CHECKOUT });
    await settlePendingRefusals({ db, payments, log: (msg, data) => log.warn(data, msg) });
    // Scale-out: a job lost with Redis (no persistence) is enqueued again from the task row.
    let requeued = 0;
    if (queue.kind === "bullmq" && role !== "web") {
      for (const id of await staleQueuedTasks(db, 30_000)) {
        await queue.enqueue(id);
        requeued++;
      }
    }
    if (expired || stale || kept || requeued || renewed)
      log.info({ expired, stale, kept, requeued, renewed }, "sweep");
  };

  if (!overrides.noWorker && role !== "web") {
    // One machine: tasks cut off by a restart run again (or fail with a refund) first.
    // Several workers: a dead worker's jobs come back as redeliveries instead.
    const pending = role === "all" ? await recoverTasks(taskDeps) : [];
    queue.start((taskId, info) => {
      log.debug({ taskId, ...info }, "job");
      return runTask(taskDeps, taskId, info);
    });
    for (const id of pending) await queue.enqueue(id);
  }

  let timer: NodeJS.Timeout | undefined;
  if (!overrides.noSweeperTimer) {
    timer = setInterval(() => {
      sweep().catch((err) => log.error({ err: String(err) }, "sweep failed"));
    }, 15_000);
    timer.unref();
  }

  let closed = false;
  return {
    env,
    role,
    metrics,
    rateLimits,
    log,
    database,
    db,
    storage,
    events,
    queue,
    taskCache,
    renderTimes,
    auth,
    sessions,
    revokeSessions,
    streamSlots,
    signer,
    sanitizer,
    gate,
    inputRules,
    pricing,
    botCheck,
    altcha,
    payments,
    stripe,
    renderer,
    engineRouter: engine.router,
    imageProviders: configuredProviders(env),
    providerWebhooks: engine.webhooks,
    taskDeps,
    submitDeps,
    settings,
    allowedOrigins,
    sweep,
    async close(graceMs) {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      await queue.close(graceMs);
      await mailer.drain();
      smtp?.close();
      await pool?.close();
      await checkPool?.close();
      await events.close();
      await settings.close();
      await settingsChannel.close();
      unsubscribeRevocations();
      await revocations.close();
      await redis?.quit().catch(() => {});
      await database.close();
    },
  };
}
