import { KEEP_IDENTITY, type EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Hair Style Generator (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Create one single image containing a 3 x 3 grid of nine portraits of the same person from this photo, each with a different hairstyle:",
    "a short pixie crop, a textured crop with a low fade, a chin-length bob, a shoulder-length lob with curtain bangs, long soft layers, voluminous natural curls, a sleek straight long style, a braided style and a slicked-back undercut.",
    "Every cell shows the same face, expression, skin tone and camera angle, head-and-shoulders, on the same plain light background and lighting, separated by thin white gutters.",
    "Exactly nine cells in three rows of three, no labels.",
    KEEP_IDENTITY,
  ].join(" "),
  aspectRatio: "1:1",
};
