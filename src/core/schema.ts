import { sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

/**
 * Database schema. The first four tables are better-auth's core schema, written by hand
 * (better-auth's generator is not part of our build); the rest are photofx's own.
 * Migrations in ./drizzle are generated from this file with `npm run db:generate`.
 */

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

// ---- better-auth -------------------------------------------------------------------

export const user = pgTable("user", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull().unique(),
  emailVerified: boolean("email_verified").notNull().default(false),
  image: text("image"),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
  /** "user" or "admin" (the console at /admin; ADMIN_EMAILS grants it to verified addresses). */
  role: text("role").notNull().default("user"),
  /** Set while an operator has suspended the account: sign-in is refused (src/core/admin/users.ts). */
  suspendedAt: ts("suspended_at"),
});

export const session = pgTable(
  "session",
  {
    id: text("id").primaryKey(),
    expiresAt: ts("expires_at").notNull(),
    token: text("token").notNull().unique(),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
  },
  (t) => [index("session_user_idx").on(t.userId)],
);

export const account = pgTable(
  "account",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    providerId: text("provider_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    accessTokenExpiresAt: ts("access_token_expires_at"),
    refreshTokenExpiresAt: ts("refresh_token_expires_at"),
    scope: text("scope"),
    password: text("password"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("account_user_idx").on(t.userId)],
);

export const verification = pgTable(
  "verification",
  {
    id: text("id").primaryKey(),
    identifier: text("identifier").notNull(),
    value: text("value").notNull(),
    expiresAt: ts("expires_at").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("verification_identifier_idx").on(t.identifier)],
);

// ---- credits -----------------------------------------------------------------------

/**
 * Cached balance, changed only in the same transaction as a ledger entry. The CHECK makes
 * a negative balance impossible even if application code were wrong.
 */
export const userBalance = pgTable(
  "user_balance",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => user.id, { onDelete: "cascade" }),
    balance: integer("balance").notNull().default(0),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [check("user_balance_non_negative", sql`${t.balance} >= 0`)],
);

/** Append-only ledger. The unique idempotency key makes every movement happen at most once. */
export const creditEntry = pgTable(
  "credit_entry",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /**
     * The account's id; after the account is deleted, an opaque tombstone (`deleted_…`): the
     * ledger outlives the account for accounting and fraud checks (ADR 016), so no foreign key.
     */
    userId: text("user_id").notNull(),
    /** Positive adds credits, negative spends them. */
    amount: integer("amount").notNull(),
    /** grant | charge | refund | purchase | adjustment */
    kind: text("kind").notNull(),
    taskId: text("task_id"),
    idempotencyKey: text("idempotency_key").notNull().unique(),
    note: text("note"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("credit_entry_user_idx").on(t.userId, t.createdAt)],
);

// ---- uploads, tasks, images --------------------------------------------------------

export const upload = pgTable(
  "upload",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    storageKey: text("storage_key").notNull(),
    mime: text("mime").notNull(),
    width: integer("width").notNull(),
    height: integer("height").notNull(),
    bytes: integer("bytes").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    /** Set when the stored original has been deleted (task ended, or never used). */
    deletedAt: ts("deleted_at"),
    /**
     * Kept until then after its task ended ("Keep my original photos for 30 days", ADR 016):
     * nothing deletes it before; the originals sweep deletes it after.
     */
    keepUntil: ts("keep_until"),
  },
  (t) => [
    index("upload_live_idx")
      .on(t.createdAt)
      .where(sql`${t.deletedAt} is null`),
    index("upload_user_idx").on(t.userId),
    index("upload_kept_idx")
      .on(t.keepUntil)
      .where(sql`${t.deletedAt} is null and ${t.keepUntil} is not null`),
  ],
);

export const TASK_STATES = ["queued", "running", "succeeded", "failed"] as const;
export type TaskState = (typeof TASK_STATES)[number];

export const task = pgTable(
  "task",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    effectId: text("effect_id").notNull(),
    imageType: text("image_type").notNull(),
    /**
     * Which submit route created it: "v1" (nano-banana), "v2" (nano-banana-v2), or a route of the
     * generic generate call ("create", "create-v2", "flux-kontext-v2", "flux-kontext-dev-v2"),
     * suffixed ":v1"/":v2" when the caller chose the model (core/free-form.ts#routeTier).
     */
    route: text("route").notNull(),
    prompt: text("prompt").notNull().default(""),
    options: jsonb("options").$type<Record<string, unknown>>().notNull().default({}),
    seed: integer("seed").notNull(),
    state: text("state").$type<TaskState>().notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    credits: integer("credits").notNull(),
    failedReason: text("failed_reason"),
    /** Code of the failure, for a translated message (see TaskReasons, EngineError.code). */
    failedCode: text("failed_code"),
    /** Client-sent Idempotency-Key: one task per key and user, forever. */
    idempotencyKey: text("idempotency_key"),
    /** Fingerprint of the request: one active task per fingerprint (double-click guard). */
    dedupeKey: text("dedupe_key").notNull(),
    /** The submit that made it: every task of one submit shares it (null before batches existed). */
    batchId: text("batch_id"),
    createdAt: ts("created_at").notNull().defaultNow(),
    startedAt: ts("started_at"),
    finishedAt: ts("finished_at"),
    deadlineAt: ts("deadline_at").notNull(),
    /** The engine that rendered it (or last failed it), when known: the console's engine figures. */
    provider: text("provider"),
  },
  (t) => [
    check("task_state_valid", sql`${t.state} in ('queued','running','succeeded','failed')`),
    uniqueIndex("task_user_idempotency_uq")
      .on(t.userId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
    uniqueIndex("task_user_active_dedupe_uq")
      .on(t.userId, t.dedupeKey)
      .where(sql`${t.state} in ('queued','running')`),
    index("task_active_deadline_idx")
      .on(t.deadlineAt)
      .where(sql`${t.state} in ('queued','running')`),
    index("task_user_created_idx").on(t.userId, t.createdAt),
    index("task_user_batch_idx")
      .on(t.userId, t.batchId)
      .where(sql`${t.batchId} is not null`),
    index("task_created_idx").on(t.createdAt),
  ],
);

export const taskInput = pgTable(
  "task_input",
  {
    taskId: text("task_id")
      .notNull()
      .references(() => task.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    uploadId: text("upload_id")
      .notNull()
      .references(() => upload.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.taskId, t.position] }), index("task_input_upload_idx").on(t.uploadId)],
);

export const image = pgTable(
  "image",
  {
    id: text("id").primaryKey(),
    taskId: text("task_id")
      .notNull()
      .unique()
      .references(() => task.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    storageKey: text("storage_key").notNull(),
    mime: text("mime").notNull(),
    width: integer("width").notNull(),
    height: integer("height").notNull(),
    prompt: text("prompt").notNull().default(""),
    seed: integer("seed").notNull(),
    /** URLs of the uploads it was made from (the originals themselves are deleted). */
    sourceUrls: jsonb("source_urls").$type<string[]>().notNull(),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("image_user_created_idx").on(t.userId, t.createdAt)],
);

/**
 * Public links to one result, made by its owner (opt-in per result) and revocable. The token
 * is the capability (192 random bits); a revoked link stays as a row so it never works again.
 * Deleting the result deletes its links.
 */
export const shareLink = pgTable(
  "share_link",
  {
    token: text("token").primaryKey(),
    imageId: text("image_id")
      .notNull()
      .references(() => image.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    revokedAt: ts("revoked_at"),
  },
  (t) => [
    index("share_link_image_idx").on(t.imageId),
    uniqueIndex("share_link_active_uq")
      .on(t.imageId)
      .where(sql`${t.revokedAt} is null`),
  ],
);

// ---- plans, purchases, bot-check -----------------------------------------------------

/** A user's subscription. Subscribed while `currentPeriodEnd` is in the future. */
export const subscription = pgTable("subscription", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  planId: text("plan_id").notNull(),
  /** active | canceled | past_due */
  status: text("status").notNull(),
  currentPeriodEnd: ts("current_period_end").notNull(),
  /** test | stripe */
  provider: text("provider").notNull(),
  providerCustomerId: text("provider_customer_id"),
  providerSubscriptionId: text("provider_subscription_id").unique(),
  /** Cancelled by its owner: the plan stays until `currentPeriodEnd`, then lapses (no renewal). */
  cancelAtPeriodEnd: boolean("cancel_at_period_end").notNull().default(false),
  /** Time of the provider's last subscription-updated event applied (older ones are ignored). */
  providerEventAt: ts("provider_event_at"),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/**
 * A second subscription to a plan the user already had (two checkouts raced): it is not
 * applied; the provider is asked to cancel it now and refund what it took (`settledAt` once
 * done, retried from each later webhook until then). Kept as the operator's record.
 */
export const refusedSubscription = pgTable(
  "refused_subscription",
  {
    /** `{provider}:{providerSubscriptionId}` */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    planId: text("plan_id").notNull(),
    provider: text("provider").notNull(),
    providerSubscriptionId: text("provider_subscription_id").notNull(),
    checkoutId: text("checkout_id"),
    createdAt: ts("created_at").notNull().defaultNow(),
    /** Cancelled and refunded at the provider; null: still to do. */
    settledAt: ts("settled_at"),
  },
  (t) => [
    index("refused_subscription_pending_idx")
      .on(t.createdAt)
      .where(sql`${t.settledAt} is null`),
  ],
);

/** One checkout a user started (a pack or a plan), in the test checkout or Stripe. */
export const checkoutSession = pgTable(
  "checkout_session",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    productId: text("product_id").notNull(),
    /** pack | plan */
    kind: text("kind").notNull(),
    provider: text("provider").notNull(),
    providerSessionId: text("provider_session_id").unique(),
    /** open | completed | canceled */
    status: text("status").notNull().default("open"),
    createdAt: ts("created_at").notNull().defaultNow(),
    completedAt: ts("completed_at"),
  },
  (t) => [index("checkout_session_user_idx").on(t.userId, t.createdAt)],
);

/** Payment events already applied: each provider event changes money at most once. */
export const paymentEvent = pgTable("payment_event", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  receivedAt: ts("received_at").notNull().defaultNow(),
});

/**
 * Money received, as the provider charged it (ADR 018): one row per fulfilled payment, written
 * in the same transaction as the credits it bought and under the same key as their ledger
 * entry (`purchase:{checkoutId}` for a pack, `plan-credits:{invoiceId}` for a plan's invoice).
 * The console's revenue is summed from these rows, never from today's price table. No user
 * id (nothing personal), so it outlives a deleted account.
 */
export const payment = pgTable(
  "payment",
  {
    id: text("id").primaryKey(),
    /** test | stripe */
    provider: text("provider").notNull(),
    productId: text("product_id").notNull(),
    /** pack | plan */
    kind: text("kind").notNull(),
    /** What was charged, in the currency's minor unit (Stripe's amount_total / amount_paid). */
    amount: integer("amount").notNull(),
    /** ISO 4217, lower case as Stripe writes it. */
    currency: text("currency").notNull(),
    paidAt: ts("paid_at").notNull().defaultNow(),
  },
  (t) => [
    index("payment_paid_idx").on(t.paidAt),
    check("payment_amount_non_negative", sql`${t.amount} >= 0`),
  ],
);

/** Bot-check tokens already spent (single use), kept until they would have expired anyway. */
export const usedBotcheckToken = pgTable(
  "used_botcheck_token",
  {
    id: text("id").primaryKey(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [index("used_botcheck_token_expires_idx").on(t.expiresAt)],
);

// ---- runtime settings ----------------------------------------------------------------

/**
 * Per-effect runtime settings (src/core/ports/settings.ts). A row exists only for an effect
 * an operator changed; no row means the env's defaults (enabled, the env's engine).
 */
export const effectSetting = pgTable("effect_setting", {
  effectId: text("effect_id").primaryKey(),
  enabled: boolean("enabled").notNull().default(true),
  /** A provider id; null: the env's choice (ENGINE / ENGINE_OVERRIDES). */
  engine: text("engine"),
  /** Who made the last change (a user id, or "system"). */
  updatedBy: text("updated_by").notNull(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

// ---- privacy -------------------------------------------------------------------------

/** A user's privacy choices (ADR 016). No row: the defaults (originals are not kept). */
export const userPreference = pgTable("user_preference", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  /** "Keep my original photos for 30 days": a task's originals outlive it by 30 days. */
  keepOriginals: boolean("keep_originals").notNull().default(false),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

// ---- admin console -----------------------------------------------------------------

/**
 * Every operator action of the console (src/core/admin/audit.ts): who, what, when, the state
 * before and after. Append-only: the application only inserts (a deleted account's personal
 * data is replaced by its tombstone, ADR 016). No foreign keys: rows outlive the accounts.
 */
export const adminAudit = pgTable(
  "admin_audit",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    actorId: text("actor_id").notNull(),
    actorEmail: text("actor_email"),
    /** e.g. credits.grant, user.suspend, task.refund, effect.update, user.role */
    action: text("action").notNull(),
    /** user | task | effect */
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    before: jsonb("before").$type<Record<string, unknown> | null>(),
    after: jsonb("after").$type<Record<string, unknown> | null>(),
    reason: text("reason"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    index("admin_audit_created_idx").on(t.createdAt),
    index("admin_audit_target_idx").on(t.targetType, t.targetId),
    index("admin_audit_actor_idx").on(t.actorId),
  ],
);
