import type { EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Pixel Illustration (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Redraw the whole photo as retro 8-bit pixel art, like a scene from an early home console or arcade game.",
    "Build it from a coarse grid of large, chunky square pixels with hard edges, with no anti-aliasing, blur or smooth gradients, using a small retro palette of about 16 flat colours.",
    "Keep the composition and the main subject readable at this coarse resolution.",
  ].join(" "),
};
