import { FREE_FORM_EDIT_ID, FREE_FORM_PROMPT_MAX, TEXT_TO_IMAGE_ID } from "@/core/free-form";
import { EngineError } from "@/core/ports/renderer";
import { ASPECT_RATIOS, type AspectRatio, type EffectPrompt, type PromptInput } from "./shared/prompt-kit";

/**
 * The prompts of the generic generate call's free-form requests (src/core/free-form.ts):
 * the customer's instruction is the task, framed by the rules every output keeps (no
 * nudity or sexualised images, real people kept recognisable, no one made to look younger).
 * Server-only, like every prompt.
 */

const RULES =
  "Never produce nudity, sexual or sexualised content, or make anyone look younger than they are. If a real person is shown, keep them recognisably the same person.";

/** Rows of the prompt table (providers' `supports` read it); the text is built by {@link freeFormPrompt}. */
export const FREE_FORM_PROMPTS: Readonly<Record<string, EffectPrompt>> = {
  [FREE_FORM_EDIT_ID]: {
    instruction: "Edit the attached image(s) as the customer asks below, changing nothing else.",
  },
  [TEXT_TO_IMAGE_ID]: { instruction: "Create one image as the customer describes below." },
};

/** Printable text on one line, at most the generate call's limit. */
function clean(raw: string): string {
  return raw
    .normalize("NFKC")
    .replace(/[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/gu, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, FREE_FORM_PROMPT_MAX)
    .trim();
}

/** The prompt of one free-form render: the instruction, the customer's words, the rules; and the chosen shape. */
export function freeFormPrompt(input: PromptInput): { text: string; aspectRatio?: AspectRatio } {
  const row = FREE_FORM_PROMPTS[input.effectId];
  const asked = clean(input.mood);
  if (!row || !asked) throw new EngineError("Please describe the image you want.", false, "promptRequired");
  const ratio = input.options.aspectRatio;
  const aspectRatio = ASPECT_RATIOS.find((r) => r === ratio);
  return {
    text: [row.instruction, asked, RULES].join("\n\n"),
    ...(aspectRatio ? { aspectRatio } : {}),
  };
}
