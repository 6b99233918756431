import type { EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for 3D Figure (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Create a photorealistic product photo of a 1/7 scale collectible figure of the subject in this photo, standing on a round transparent acrylic display base on a wooden desk.",
    "Next to the figure, show its retail packaging box with a clear plastic window and printed artwork of the same character.",
    "Sculpt the figure faithfully: the same face, hairstyle, outfit and pose, with realistic painted PVC material and fine paint detail.",
    "Soft indoor lighting, shallow depth of field, the desk and a blurred room behind it.",
  ].join(" "),
  aspectRatio: "4:3",
};
