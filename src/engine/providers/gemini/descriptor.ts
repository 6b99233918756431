import type { ProviderDescriptor } from "../descriptor";
import { GeminiProvider } from "./gemini";

/** Google's Gemini image models (Nano Banana and Nano Banana 2) through the Gemini API. */
export const geminiDescriptor: ProviderDescriptor = {
  id: "gemini",
  envKeys: [
    "GEMINI_API_KEY",
    "GEMINI_BASE_URL",
    "GEMINI_MODEL_V1",
    "GEMINI_MODEL_V2",
    "GEMINI_COST_V1",
    "GEMINI_COST_V2",
    "GEMINI_DAILY_CAP",
  ],
  requires: "GEMINI_API_KEY",
  configured: (env) => Boolean(env.GEMINI_API_KEY),
  selfHosted: false,
  autoSelect: 2,
  models: (env) => ({ v1: env.GEMINI_MODEL_V1, v2: env.GEMINI_MODEL_V2 }),
  cost: (env) => ({ v1: env.GEMINI_COST_V1, v2: env.GEMINI_COST_V2 }),
  dailyCap: (env) => env.GEMINI_DAILY_CAP,
  create(env, ctx) {
    return {
      renderer: new GeminiProvider({
        apiKey: env.GEMINI_API_KEY!,
        models: { v1: env.GEMINI_MODEL_V1, v2: env.GEMINI_MODEL_V2 },
        // One generateContent call is the whole render: only the router's time limit bounds it.
        retry: { ...ctx.retry, attemptTimeoutMs: 0 },
        baseUrl: env.GEMINI_BASE_URL,
        log: ctx.log,
      }),
    };
  },
};
