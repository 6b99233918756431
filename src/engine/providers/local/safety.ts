import { EngineError } from "@/core/ports/renderer";

/** The translated code of a content-safety refusal (errors.server.input_nsfw / task_nsfw). */
export const NSFW_CODE = "nsfw";

export const NSFW_REASONS = {
  input:
    "This photo appears to contain nudity or sexual content, which this service does not edit. Please choose another photo.",
  output:
    "The result was withheld because it appeared to contain nudity or sexual content. Please try a different photo.",
} as const;

export const nsfwError = (kind: keyof typeof NSFW_REASONS): EngineError =>
  new EngineError(NSFW_REASONS[kind], false, NSFW_CODE);
