import type { EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Inverted Face Filter (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Mirror this image horizontally: return an exact left-right flipped copy of the entire photo.",
    "Do not change anything else: no retouching or redrawing, the same colours, crop and resolution; any text in the picture will read backwards.",
  ].join(" "),
};
