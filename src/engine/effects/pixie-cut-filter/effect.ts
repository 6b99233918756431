import { defineEffect } from "@/core/effect-definition";

/**
 * Pixie Cut Filter: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "pixie-cut-filter",
  order: 15,
  title: "Pixie Cut Filter",
  tags: ["hair", "people"],
  category: "people",
  exampleInputs: [["portrait-female-1.jpg"], ["portrait-male-1.jpg"], ["portrait-male-2.jpg"]],
});
