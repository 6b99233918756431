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
  // The men of the fixtures already wear short hair: their pairs showed no visible change.
  exampleInputs: [["portrait-female-3-nasa.png"]],
});
