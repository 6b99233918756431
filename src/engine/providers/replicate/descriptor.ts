import type { ProviderDescriptor } from "../descriptor";
import { createReplicateProvider } from "./replicate";

/** Replicate's predictions API. A token alone never selects it: ENGINE or an override must name it. */
export const replicateDescriptor: ProviderDescriptor = {
  id: "replicate",
  envKeys: [
    "REPLICATE_API_TOKEN",
    "REPLICATE_BASE_URL",
    "REPLICATE_MODEL",
    "REPLICATE_TEXT_MODEL",
    "REPLICATE_COST",
    "REPLICATE_DAILY_CAP",
    "REPLICATE_WEBHOOK_URL",
    "REPLICATE_WEBHOOK_SECRET",
  ],
  requires: "REPLICATE_API_TOKEN",
  configured: (env) => Boolean(env.REPLICATE_API_TOKEN),
  selfHosted: false,
  autoSelect: null,
  models: (env) => ({ v1: env.REPLICATE_MODEL, v2: env.REPLICATE_MODEL }),
  cost: (env) => ({ v1: env.REPLICATE_COST, v2: env.REPLICATE_COST }),
  dailyCap: (env) => env.REPLICATE_DAILY_CAP,
  create(env, ctx) {
    const provider = createReplicateProvider({
      token: env.REPLICATE_API_TOKEN!,
      baseUrl: env.REPLICATE_BASE_URL,
      model: env.REPLICATE_MODEL,
      textModel: env.REPLICATE_TEXT_MODEL,
      ...(env.REPLICATE_WEBHOOK_URL && env.REPLICATE_WEBHOOK_SECRET
        ? { webhook: { url: env.REPLICATE_WEBHOOK_URL, secret: env.REPLICATE_WEBHOOK_SECRET } }
        : {}),
      retry: ctx.retry,
      log: ctx.log,
    });
    return { renderer: provider, ...(provider.webhooks ? { webhook: provider.webhooks } : {}) };
  },
};
