import { EnvError, type Env } from "@/config/env";
import { EFFECTS } from "@/core/catalogue";
import type { ProviderLimits } from "@/core/ports/provider-limits";
import type { Renderer, RenderResult } from "@/core/ports/renderer";
import type { WebhookReceiver } from "./descriptor";
import type { RetryPolicy } from "./http";
import { ProviderRouter, type RouterConfig, type RouterLog } from "./router";
import { PROVIDER_IDS, PROVIDER_TABLE, providerById } from "./table";

/**
 * Builds the renderer the task runner uses from configuration and the provider table: the
 * local engine pool alone when no other provider is configured (nothing changes then),
 * otherwise a ProviderRouter over every configured provider. Invalid engine settings stop
 * start-up with an EnvError naming the variable.
 */

/**
 * Effects that stay on the local engine unless ENGINE_OVERRIDES says otherwise: the
 * mirror is exact and free there, which no generative model can promise.
 */
export const DEFAULT_LOCAL_EFFECTS = ["inverted-face-filter"] as const;

export interface RendererSetup {
  renderer: Renderer;
  /** Set when a provider besides the local engine is configured. */
  router: ProviderRouter | null;
  /** Webhook receivers by provider id, for `POST /api/providers/:id/webhook`. */
  webhooks: ReadonlyMap<string, WebhookReceiver>;
}

/** Images stored today (UTC) per provider and model: what the spend caps start from. */
export type ImagesToday = () => Promise<Array<{ provider: string; model: string; count: number }>>;

export interface RendererDeps {
  /** The local engine (the worker-thread pool, or a test renderer). */
  local: Renderer;
  /** From the composition root: today's stored images, so a restart does not reset the caps. */
  imagesToday?: ImagesToday;
  /** The runtime settings' engine for an effect (the admin's choice), over ENGINE_OVERRIDES. */
  engineFor?: (effectId: string) => string | undefined;
  log?: RouterLog;
  /** Spend caps and breakers shared by every process (Redis in scale-out); default: this process. */
  limits?: ProviderLimits;
  /** Content safety for generative outputs: rejects with an EngineError to fail the task (refunded). */
  screenOutput?: (result: RenderResult) => Promise<void>;
}

/** The engine settings resolved from Env: which provider, overrides and fallback. */
export interface EngineChoice {
  engine: string;
  overrides: Record<string, string>;
  fallback: string[];
}

export async function createRenderer(env: Env, deps: RendererDeps): Promise<RendererSetup> {
  const choice = resolveEngineChoice(env);
  const configured = PROVIDER_TABLE.filter((p) => p.configured(env));
  if (configured.every((p) => p.id === "local"))
    return { renderer: deps.local, router: null, webhooks: new Map() };

  const log = deps.log ?? (() => undefined);
  const retry: RetryPolicy = {
    attempts: env.ENGINE_RETRY_ATTEMPTS,
    baseDelayMs: env.ENGINE_RETRY_BASE_MS,
    maxDelayMs: env.ENGINE_RETRY_MAX_MS,
    attemptTimeoutMs: 60_000,
  };
  const renderers: Renderer[] = [];
  const webhooks = new Map<string, WebhookReceiver>();
  for (const p of configured) {
    const created = p.create(env, {
      retry,
      taskTimeoutSeconds: env.TASK_TIMEOUT_SECONDS,
      local: deps.local,
      log: (msg, extra) => log("warn", msg, { provider: p.id, ...extra }),
    });
    renderers.push(created.renderer);
    if (created.webhook) webhooks.set(p.id, created.webhook);
  }

  const config: RouterConfig = {
    ...choice,
    renderTimeoutMs: env.ENGINE_RENDER_TIMEOUT_SECONDS * 1000,
    breaker: {
      threshold: env.ENGINE_BREAKER_THRESHOLD,
      cooldownMs: env.ENGINE_BREAKER_COOLDOWN_SECONDS * 1000,
    },
    costPerImage: Object.fromEntries(configured.map((p) => [p.id, p.cost(env)])),
    dailyCap: Object.fromEntries(configured.map((p) => [p.id, p.dailyCap(env)])),
    ...(deps.engineFor ? { engineFor: deps.engineFor } : {}),
    ...(deps.screenOutput ? { screenOutput: deps.screenOutput } : {}),
  };
  const router = new ProviderRouter(renderers, config, log, deps.limits);
  if (deps.imagesToday) await seedSpend(router, env, await deps.imagesToday());
  log("info", "image engine", {
    engine: choice.engine,
    overrides: choice.overrides,
    fallback: choice.fallback,
    webhooks: [...webhooks.keys()],
  });
  return { renderer: router, router, webhooks };
}

/** Resolves ENGINE, ENGINE_OVERRIDES and ENGINE_FALLBACK against the provider table. */
export function resolveEngineChoice(env: Env): EngineChoice {
  const need = (variable: string, id: string) => {
    const p = providerById(id);
    if (!p) throw new EnvError([`${variable}: "${id}" is not one of ${PROVIDER_IDS.join(", ")}`]);
    if (!p.configured(env)) throw new EnvError([`${variable}: "${id}" needs ${p.requires} to be set`]);
  };
  // Unset ENGINE: the configured provider that selects itself first (a self-hosted one
  // before a third party; a key of a provider that never selects itself does nothing).
  const auto = PROVIDER_TABLE.filter((p) => p.autoSelect !== null && p.configured(env)).sort(
    (a, b) => a.autoSelect! - b.autoSelect!,
  );
  const engine = env.ENGINE ?? auto[0]?.id ?? "local";
  need("ENGINE", engine);

  const overrides: Record<string, string> = {};
  if (engine !== "local") for (const id of DEFAULT_LOCAL_EFFECTS) overrides[id] = "local";
  for (const [effectId, id] of Object.entries(parseOverrides(env.ENGINE_OVERRIDES))) {
    need("ENGINE_OVERRIDES", id);
    overrides[effectId] = id;
  }

  let fallback: string[];
  if (env.ENGINE_FALLBACK) {
    fallback = parseEngineList("ENGINE_FALLBACK", env.ENGINE_FALLBACK);
    for (const id of fallback) need("ENGINE_FALLBACK", id);
  } else {
    // By default another configured provider of the same kind stands in: never a third
    // party for a self-hosted engine (photos would leave the operator's hardware).
    const selfHosted = providerById(engine)!.selfHosted;
    fallback = auto.filter((p) => p.id !== engine && p.selfHosted === selfHosted).map((p) => p.id);
  }
  // The local engine always ends the order: it needs no key and no network.
  fallback = [...fallback.filter((id) => id !== "local"), "local"];
  return { engine, overrides, fallback };
}

/** Parses `effect-id=provider,…` or a JSON object of the same into effect id -> provider. */
export function parseOverrides(raw: string | undefined): Record<string, string> {
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
  const out: Record<string, string> = {};
  for (const [effectId, id] of entries) {
    if (!known.has(effectId)) throw new EnvError([`ENGINE_OVERRIDES: unknown effect "${effectId}"`]);
    if (typeof id !== "string" || !PROVIDER_IDS.includes(id)) {
      throw new EnvError([`ENGINE_OVERRIDES: "${String(id)}" is not one of ${PROVIDER_IDS.join(", ")}`]);
    }
    out[effectId] = id;
  }
  return out;
}

function parseEngineList(variable: string, raw: string): string[] {
  const ids = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const id of ids) {
    if (!PROVIDER_IDS.includes(id)) {
      throw new EnvError([`${variable}: "${id}" is not one of ${PROVIDER_IDS.join(", ")}`]);
    }
  }
  return ids;
}

/** Adds today's stored images to the spend caps, so a restart does not reset them. */
async function seedSpend(
  router: ProviderRouter,
  env: Env,
  rows: Array<{ provider: string; model: string; count: number }>,
): Promise<void> {
  const spent = new Map<string, number>();
  for (const r of rows) {
    const p = providerById(r.provider);
    if (!p || p.id === "local" || !p.configured(env)) continue;
    const route = r.model === p.models(env).v2 && p.models(env).v2 !== p.models(env).v1 ? "v2" : "v1";
    spent.set(r.provider, (spent.get(r.provider) ?? 0) + r.count * router.cost(r.provider, route));
  }
  for (const [provider, amount] of spent) await router.spend.atLeast(provider, amount);
}
