import type { EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Coloring Page (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Make a kids' coloring sheet from this picture, for children aged 6 to 9, laid out in portrait orientation for 8.5 x 11 inch US Letter paper with a white margin.",
    "Draw the main subject with bold, clean, closed black outlines on a pure white background: no shading, no grey fills, no hatching and no textures, with large simple areas that are easy to colour inside the lines.",
    "Simplify the background to a few simple shapes.",
    "In the bottom-right corner, add a small full-colour reference of the same picture, about one sixth of the page width inside a thin frame, showing suggested colours.",
    "Everything else on the page stays black line art on white.",
  ].join(" "),
  aspectRatio: "3:4",
};
