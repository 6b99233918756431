import { defineEffect } from "@/core/effect-definition";

/**
 * Image to Line Drawing: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "image-to-line-drawing",
  order: 13,
  title: "Image to Line Drawing",
  tags: ["line art", "sketch"],
  category: "art",
  exampleInputs: [["portrait-female-1.jpg"], ["pet-1-cat.png"], ["object-coffee.png"]],
});
