import { defineEffect } from "@/core/effect-definition";

/**
 * Hair Style Generator: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "hair-style-generator",
  order: 11,
  title: "Hair Style Generator",
  tags: ["hair", "people", "grid"],
  category: "people",
  // portrait-female-1 renders (the cheek and neck behind her lock rebuilt), but a pale seam
  // runs along the rebuilt cheek: not an example.
  exampleInputs: [["portrait-male-1.jpg"], ["portrait-male-2.jpg"]],
});
