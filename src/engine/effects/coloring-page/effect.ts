import { defineEffect } from "@/core/effect-definition";

/**
 * Coloring Page: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "coloring-page",
  order: 9,
  title: "Coloring Page",
  tags: ["kids", "printable", "line art"],
  category: "art",
  exampleInputs: [["portrait-female-1.jpg"], ["object-coffee.png"], ["pet-1-cat.png"]],
});
