import type { EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Baby Face Generator (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Create a realistic, wholesome portrait of a baby about 6 to 12 months old who plausibly blends the features of the two parents: eye shape and colour, hair colour and texture, skin tone, nose and mouth.",
    "Show only the baby, head and shoulders, with a happy expression, in soft natural light against a plain pastel background.",
    "This is a playful family picture, not a prediction: make it a believable, heart-warming photo.",
  ].join(" "),
  aspectRatio: "4:5",
  extend: ({ imageCount }) => ({
    text:
      imageCount >= 2
        ? "The two images are separate photos, one of each parent."
        : "The image is one photo of the couple; use both faces in it as the parents.",
  }),
};
