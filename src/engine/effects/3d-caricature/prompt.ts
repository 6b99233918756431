import type { EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for 3D Caricature (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Create a playful 3D caricature of the person in this photo in a polished animated-movie style: an oversized head on a smaller body, gently exaggerating their most distinctive features such as the smile, nose, hairstyle or glasses.",
    "Render smooth stylised shapes with soft subsurface skin shading, soft studio lighting with a subtle rim light, and a clean pastel gradient background.",
    "Exaggerated but recognisable, good-natured and never grotesque.",
  ].join(" "),
  aspectRatio: "4:5",
};
