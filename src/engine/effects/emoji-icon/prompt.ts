import type { EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Emoji Icon (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Turn the face in this photo into a single square emoji icon in the style of modern messaging-app emoji: a round, glossy, softly 3D cartoon head with simple bold shapes and bright flat colours.",
    "Keep the person's recognisable traits: hairstyle and hair colour, skin tone, glasses or facial hair if present, and their expression.",
    "Centre the head with even padding on a plain white background; show only one face, no body.",
  ].join(" "),
  aspectRatio: "1:1",
};
