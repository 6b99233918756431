import type { ProviderDescriptor } from "../descriptor";
import { LOCAL_MODEL, LOCAL_PROVIDER_ID } from "./local-provider";

/** The embedded CPU engine: always configured, free, and the end of every fallback order. */
export const localDescriptor: ProviderDescriptor = {
  id: LOCAL_PROVIDER_ID,
  envKeys: ["ENGINE_THREADS"],
  requires: "nothing",
  configured: () => true,
  selfHosted: true,
  autoSelect: 99,
  models: () => ({ v1: LOCAL_MODEL, v2: LOCAL_MODEL }),
  cost: () => ({ v1: 0, v2: 0 }),
  dailyCap: () => undefined,
  create: (_env, ctx) => ({ renderer: ctx.local }),
};
