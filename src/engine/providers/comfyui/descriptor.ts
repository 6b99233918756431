import type { ProviderDescriptor } from "../descriptor";
import { createComfyUIProvider } from "./provider";

/** Built-in workflows' model name (stored with each image). */
export const COMFYUI_MODEL = "qwen-image-edit-2509-lightning";

/**
 * ComfyUI on the operator's own GPUs: photos stay on their hardware, so a configured
 * COMFYUI_URL selects it first and its default fallback never reaches a third party.
 */
export const comfyuiDescriptor: ProviderDescriptor = {
  id: "comfyui",
  envKeys: [
    "COMFYUI_URL",
    "COMFYUI_TOKEN",
    "COMFYUI_WORKFLOWS_DIR",
    "COMFYUI_MEGAPIXELS",
    "COMFYUI_DOWN_SECONDS",
    "COMFYUI_COST",
    "COMFYUI_DAILY_CAP",
  ],
  requires: "COMFYUI_URL",
  configured: (env) => Boolean(env.COMFYUI_URL?.trim()),
  selfHosted: true,
  autoSelect: 0,
  models: () => ({ v1: COMFYUI_MODEL, v2: COMFYUI_MODEL }),
  cost: (env) => ({ v1: env.COMFYUI_COST, v2: env.COMFYUI_COST }),
  dailyCap: (env) => env.COMFYUI_DAILY_CAP,
  create: (env, ctx) => ({
    renderer: createComfyUIProvider({
      urls: env
        .COMFYUI_URL!.split(",")
        .map((u) => u.trim())
        .filter(Boolean),
      token: env.COMFYUI_TOKEN,
      workflowsDir: env.COMFYUI_WORKFLOWS_DIR,
      retry: ctx.retry,
      downMs: env.COMFYUI_DOWN_SECONDS * 1000,
      megapixels: env.COMFYUI_MEGAPIXELS,
      model: COMFYUI_MODEL,
      log: ctx.log,
    }),
  }),
};
