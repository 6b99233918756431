import { KEEP_IDENTITY, type EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Hug My Younger Self (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "One photo shows a person as an adult today and the other shows the same person as a child; work out which is which.",
    "Create one heartfelt, photorealistic picture of the adult warmly hugging their younger self, upper bodies visible, both faces clearly shown and faithful to their photos, with natural proportions so the child is child-sized.",
    "Soft warm light and a gentle, simple background; a tender, joyful mood.",
    KEEP_IDENTITY,
  ].join(" "),
  aspectRatio: "4:5",
};
