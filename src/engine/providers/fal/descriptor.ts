import type { ProviderDescriptor } from "../descriptor";
import { FalProvider } from "./fal";
import { FalWebhookHub } from "./fal-webhook";

/** fal.ai's hosted Nano Banana (queue API, optional signed webhooks). */
export const falDescriptor: ProviderDescriptor = {
  id: "fal",
  envKeys: [
    "FAL_KEY",
    "FAL_BASE_URL",
    "FAL_MODEL_V1",
    "FAL_MODEL_V2",
    "FAL_COST_V1",
    "FAL_COST_V2",
    "FAL_DAILY_CAP",
    "FAL_POLL_MS",
    "FAL_WEBHOOK_URL",
    "FAL_JWKS_URL",
  ],
  requires: "FAL_KEY",
  configured: (env) => Boolean(env.FAL_KEY),
  selfHosted: false,
  autoSelect: 1,
  models: (env) => ({ v1: env.FAL_MODEL_V1, v2: env.FAL_MODEL_V2 }),
  cost: (env) => ({ v1: env.FAL_COST_V1, v2: env.FAL_COST_V2 }),
  dailyCap: (env) => env.FAL_DAILY_CAP,
  create(env, ctx) {
    const hub = env.FAL_WEBHOOK_URL ? new FalWebhookHub({ jwksUrl: env.FAL_JWKS_URL }) : null;
    const renderer = new FalProvider({
      key: env.FAL_KEY!,
      models: { v1: env.FAL_MODEL_V1, v2: env.FAL_MODEL_V2 },
      retry: ctx.retry,
      baseUrl: env.FAL_BASE_URL,
      pollMs: { initial: env.FAL_POLL_MS, max: Math.max(env.FAL_POLL_MS, 5_000) },
      // fal keeps our inputs and its output no longer than a task can last, plus slack.
      storageTtlSeconds: Math.max(600, ctx.taskTimeoutSeconds * 2),
      ...(hub && env.FAL_WEBHOOK_URL ? { webhook: { url: env.FAL_WEBHOOK_URL, hub } } : {}),
      log: ctx.log,
    });
    return { renderer, ...(hub ? { webhook: hub } : {}) };
  },
};
