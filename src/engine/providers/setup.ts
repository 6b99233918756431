import { count, gte } from "drizzle-orm";
import type { Db } from "@/core/db";
import { image } from "@/core/schema";
import { EnvError, type Env } from "@/config/env";
import { EFFECTS } from "@/core/catalogue";
import type { Renderer } from "@/core/ports/renderer";
import { FalProvider } from "./fal/fal";
import { FalWebhookHub } from "./fal/fal-webhook";
import { GeminiProvider } from "./gemini/gemini";
import type { RetryPolicy } from "./http";
import { ProviderRouter, type RouterConfig, type RouterLog } from "./router";

/**
 * Builds the renderer the task runner uses from configuration: the local engine pool
 * alone when no hosted provider is configured (nothing changes then), otherwise a
 * ProviderRouter over fal, Gemini and the local pool. Invalid engine settings stop
 * start-up with an EnvError naming the variable.
 */

export const ENGINE_IDS = ["local", "fal", "gemini"] as const;
export type EngineId = (typeof ENGINE_IDS)[number];

/**
 * Effects that stay on the local engine unless ENGINE_OVERRIDES says otherwise: the
 * mirror is exact and free there, which no generative model can promise.
 */
export const DEFAULT_LOCAL_EFFECTS = ["inverted-face-filter"] as const;

export interface RendererSetup {
  renderer: Renderer;
  /** Set when a hosted provider is configured. */
  router: ProviderRouter | null;
  /** Set in fal's webhook mode (FAL_WEBHOOK_URL): the API route hands deliveries to it. */
  falWebhooks: FalWebhookHub | null;
}

export interface RendererDeps {
  /** The local engine (the worker-thread pool, or a test renderer). */
  local: Renderer;
  /** Seeds today's spend from the images already stored. */
  db?: Db;
  log?: RouterLog;
}

/** The engine settings resolved from Env: which provider, overrides and fallback. */
export interface EngineChoice {
  engine: EngineId;
  overrides: Record<string, EngineId>;
  fallback: EngineId[];
}

export async function createRenderer(env: Env, deps: RendererDeps): Promise<RendererSetup> {
  const choice = resolveEngineChoice(env);
  const hostedInUse = [choice.engine, ...Object.values(choice.overrides), ...choice.fallback].some(
    (id) => id !== "local",
  );
  if (!hostedInUse) return { renderer: deps.local, router: null, falWebhooks: null };

  const log = deps.log ?? (() => undefined);
  const providerLog = (id: string) => (msg: string, extra?: Record<string, unknown>) =>
    log("warn", msg, { provider: id, ...extra });
  const retry: RetryPolicy = {
    attempts: env.ENGINE_RETRY_ATTEMPTS,
    baseDelayMs: env.ENGINE_RETRY_BASE_MS,
    maxDelayMs: env.ENGINE_RETRY_MAX_MS,
    attemptTimeoutMs: 60_000,
  };

  const providers: Renderer[] = [];
  let falWebhooks: FalWebhookHub | null = null;
  if (env.FAL_KEY) {
    falWebhooks = env.FAL_WEBHOOK_URL ? new FalWebhookHub({ jwksUrl: env.FAL_JWKS_URL }) : null;
    providers.push(
      new FalProvider({
        key: env.FAL_KEY,
        models: { v1: env.FAL_MODEL_V1, v2: env.FAL_MODEL_V2 },
        retry,
        baseUrl: env.FAL_BASE_URL,
        pollMs: { initial: env.FAL_POLL_MS, max: Math.max(env.FAL_POLL_MS, 5_000) },
        // fal keeps our inputs and its output no longer than a task can last, plus slack.
        storageTtlSeconds: Math.max(600, env.TASK_TIMEOUT_SECONDS * 2),
        ...(falWebhooks && env.FAL_WEBHOOK_URL
          ? { webhook: { url: env.FAL_WEBHOOK_URL, hub: falWebhooks } }
          : {}),
        log: providerLog("fal"),
      }),
    );
  }
  if (env.GEMINI_API_KEY) {
    providers.push(
      new GeminiProvider({
        apiKey: env.GEMINI_API_KEY,
        models: { v1: env.GEMINI_MODEL_V1, v2: env.GEMINI_MODEL_V2 },
        // One generateContent call is the whole render: only the router's time limit bounds it.
        retry: { ...retry, attemptTimeoutMs: 0 },
        baseUrl: env.GEMINI_BASE_URL,
        log: providerLog("gemini"),
      }),
    );
  }
  providers.push(deps.local);

  const config: RouterConfig = {
    ...choice,
    renderTimeoutMs: env.ENGINE_RENDER_TIMEOUT_SECONDS * 1000,
    breaker: {
      threshold: env.ENGINE_BREAKER_THRESHOLD,
      cooldownMs: env.ENGINE_BREAKER_COOLDOWN_SECONDS * 1000,
    },
    costPerImage: {
      fal: { v1: env.FAL_COST_V1, v2: env.FAL_COST_V2 },
      gemini: { v1: env.GEMINI_COST_V1, v2: env.GEMINI_COST_V2 },
    },
    dailyCap: { fal: env.FAL_DAILY_CAP, gemini: env.GEMINI_DAILY_CAP },
  };
  const router = new ProviderRouter(providers, config, log);
  if (deps.db) await seedSpend(router, deps.db, env);
  log("info", "image engine", {
    engine: choice.engine,
    overrides: choice.overrides,
    fallback: choice.fallback,
    webhook: Boolean(falWebhooks),
  });
  return { renderer: router, router, falWebhooks };
}

/** Resolves ENGINE, ENGINE_OVERRIDES and ENGINE_FALLBACK against the keys that are set. */
export function resolveEngineChoice(env: Env): EngineChoice {
  const keyed: Record<EngineId, boolean> = {
    local: true,
    fal: Boolean(env.FAL_KEY),
    gemini: Boolean(env.GEMINI_API_KEY),
  };
  const need = (variable: string, id: EngineId) => {
    if (!keyed[id]) {
      throw new EnvError([
        `${variable}: "${id}" needs ${id === "fal" ? "FAL_KEY" : "GEMINI_API_KEY"} to be set`,
      ]);
    }
  };
  // Unset ENGINE: a configured key selects its provider; with none, the local engine.
  const engine: EngineId = env.ENGINE ?? (keyed.fal ? "fal" : keyed.gemini ? "gemini" : "local");
  need("ENGINE", engine);

  const overrides: Record<string, EngineId> = {};
  if (engine !== "local") for (const id of DEFAULT_LOCAL_EFFECTS) overrides[id] = "local";
  for (const [effectId, id] of Object.entries(parseOverrides(env.ENGINE_OVERRIDES))) {
    need("ENGINE_OVERRIDES", id);
    overrides[effectId] = id;
  }

  let fallback: EngineId[];
  if (env.ENGINE_FALLBACK) {
    fallback = parseEngineList("ENGINE_FALLBACK", env.ENGINE_FALLBACK);
    for (const id of fallback) need("ENGINE_FALLBACK", id);
  } else {
    // By default the other configured hosted provider stands in first.
    fallback = (["fal", "gemini"] as const).filter((id) => id !== engine && keyed[id]);
  }
  // The local engine always ends the order: it needs no key and no network.
  fallback = [...fallback.filter((id) => id !== "local"), "local"];
  return { engine, overrides, fallback };
}

/** Parses `effect-id=provider,…` or a JSON object of the same into effect id -> provider. */
export function parseOverrides(raw: string | undefined): Record<string, EngineId> {
  if (!raw?.trim()) return {};
  let entries: Array<[string, unknown]>;
  if (raw.trim().startsWith("{")) {
    try {
      entries = Object.entries(JSON.parse(raw) as Record<string, unknown>);
    } catch {
      throw new EnvError(["ENGINE_OVERRIDES: not valid JSON"]);
    }
  } else {
    entries = raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .map((pair) => {
        const [k, v, ...rest] = pair.split("=").map((s) => s.trim());
        if (!k || !v || rest.length)
          throw new EnvError([`ENGINE_OVERRIDES: "${pair}" is not effect-id=provider`]);
        return [k, v];
      });
  }
  const known = new Set(EFFECTS.map((e) => e.id));
  const out: Record<string, EngineId> = {};
  for (const [effectId, id] of entries) {
    if (!known.has(effectId)) throw new EnvError([`ENGINE_OVERRIDES: unknown effect "${effectId}"`]);
    if (typeof id !== "string" || !(ENGINE_IDS as readonly string[]).includes(id)) {
      throw new EnvError([`ENGINE_OVERRIDES: "${String(id)}" is not one of ${ENGINE_IDS.join(", ")}`]);
    }
    out[effectId] = id as EngineId;
  }
  return out;
}

function parseEngineList(variable: string, raw: string): EngineId[] {
  const ids = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const id of ids) {
    if (!(ENGINE_IDS as readonly string[]).includes(id)) {
      throw new EnvError([`${variable}: "${id}" is not one of ${ENGINE_IDS.join(", ")}`]);
    }
  }
  return ids as EngineId[];
}

/** Adds today's stored images (UTC) to the spend cap, so a restart does not reset it. */
async function seedSpend(router: ProviderRouter, db: Db, env: Env): Promise<void> {
  const midnight = new Date(new Date().toISOString().slice(0, 10) + "T00:00:00Z");
  const rows = await db
    .select({ provider: image.provider, model: image.model, n: count() })
    .from(image)
    .where(gte(image.createdAt, midnight))
    .groupBy(image.provider, image.model);
  const v2Models: Record<string, string> = { fal: env.FAL_MODEL_V2, gemini: env.GEMINI_MODEL_V2 };
  for (const r of rows) {
    if (r.provider !== "fal" && r.provider !== "gemini") continue;
    const route = r.model === v2Models[r.provider] ? "v2" : "v1";
    router.spend.seed(r.provider, r.n * router.cost(r.provider, route));
  }
}
