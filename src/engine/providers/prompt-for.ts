import { buildPrompt, type BuiltPrompt } from "../prompts";
import type { RenderRequest } from "@/core/ports/renderer";
import { inputSize } from "./images";

/** The prompt a hosted provider sends for a request (the first image's size sets the ratio). */
export async function promptFor(request: RenderRequest): Promise<BuiltPrompt> {
  const size = request.images[0] ? await inputSize(request.images[0].bytes) : undefined;
  return buildPrompt({
    effectId: request.effectId,
    options: request.options,
    mood: request.prompt,
    imageCount: request.images.length,
    inputSize: size,
  });
}
