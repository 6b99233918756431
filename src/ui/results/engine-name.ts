/** How users see an engine: brands as they are, ours in the user's language (never an internal id). */
const ENGINE_NAMES: Record<string, string> = {
  comfyui: "ComfyUI",
  fal: "fal.ai",
  gemini: "Google Gemini",
  openai: "OpenAI",
  replicate: "Replicate",
};

/** The engine's name; `local` is the caller's translated name for the built-in engine. */
export function engineName(id: string, local: string): string {
  return id === "local" ? local : (ENGINE_NAMES[id] ?? id);
}

/**
 * The "Model" line of a result: the built-in engine by its name alone (its model ids, such as
 * `photofx-local-1`, mean nothing to a user), a hosted one as "brand · model".
 */
export function modelLine(provider: string, model: string, local: string): string {
  return provider === "local" ? local : `${engineName(provider, local)} · ${model}`;
}
