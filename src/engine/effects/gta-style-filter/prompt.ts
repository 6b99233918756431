import type { EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for GTA Style Filter (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Redraw this photo as bold painted cover art in the style of classic open-world crime video game posters.",
    "Use thick clean ink outlines, flat cel-shaded colour blocks, punchy saturated colours and dramatic warm sunset lighting, with a confident, larger-than-life pose and a stylised city backdrop with palm trees and a skyline.",
    "Keep each face recognisable and the outfit's main colours.",
    "Do not include any game title, publisher logo or trademark.",
  ].join(" "),
  aspectRatio: "3:4",
};
