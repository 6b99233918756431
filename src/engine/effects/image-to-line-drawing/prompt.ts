import type { EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Image to Line Drawing (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Convert this photo into a clean line drawing, like a fine-pen sketch: crisp dark ink lines on a pure white background that trace the contours and main interior shapes of the subject and the scene.",
    "Remove all colour, shading, tone and texture; use a consistent line weight with slightly heavier outer contours.",
    "Keep the exact composition and proportions of the photo.",
  ].join(" "),
};
