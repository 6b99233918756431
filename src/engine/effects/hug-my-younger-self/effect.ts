import { defineEffect } from "@/core/effect-definition";

/**
 * Hug My Younger Self: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "hug-my-younger-self",
  order: 17,
  title: "Hug My Younger Self",
  tags: ["people", "nostalgia", "composite"],
  category: "people",
  input: {
    mode: "together",
    min: 2,
    max: 2,
    describe: "two photos: one of you now and one from your childhood",
  },
  acceptsPrompt: true,
  exampleInputs: [
    ["portrait-female-1.jpg", "child-2-girl-1860s-crop.jpg"],
    ["portrait-male-1.jpg", "child-2-girl-1860s-crop.jpg"],
    ["portrait-female-3-nasa.png", "child-2-girl-1860s-crop.jpg"],
  ],
});
