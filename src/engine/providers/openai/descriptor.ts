import type { ProviderDescriptor } from "../descriptor";
import { createOpenAIProvider } from "./openai";

/** OpenAI's Images API (edits). A key alone never selects it: ENGINE or an override must name it. */
export const openaiDescriptor: ProviderDescriptor = {
  id: "openai",
  envKeys: ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_IMAGE_MODEL", "OPENAI_COST", "OPENAI_DAILY_CAP"],
  requires: "OPENAI_API_KEY",
  configured: (env) => Boolean(env.OPENAI_API_KEY),
  selfHosted: false,
  autoSelect: null,
  models: (env) => ({ v1: env.OPENAI_IMAGE_MODEL, v2: env.OPENAI_IMAGE_MODEL }),
  cost: (env) => ({ v1: env.OPENAI_COST, v2: env.OPENAI_COST }),
  dailyCap: (env) => env.OPENAI_DAILY_CAP,
  create: (env, ctx) => ({
    renderer: createOpenAIProvider({
      apiKey: env.OPENAI_API_KEY!,
      baseUrl: env.OPENAI_BASE_URL,
      model: env.OPENAI_IMAGE_MODEL,
      // One edits call is the whole render (often over a minute): the router's limit bounds it.
      retry: { ...ctx.retry, attemptTimeoutMs: 0 },
      log: ctx.log,
    }),
  }),
};
