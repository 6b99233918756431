import { defineEffect } from "@/core/effect-definition";

/**
 * Pixel Illustration: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "pixel-illustration",
  order: 10,
  title: "Pixel Illustration",
  tags: ["pixel art", "8-bit", "retro"],
  category: "art",
  exampleInputs: [["portrait-female-1.jpg"], ["pet-1-cat.png"], ["object-coffee.png"]],
});
