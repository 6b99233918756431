import { defineEffect } from "@/core/effect-definition";

/**
 * Studio Portrait: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "studio-portrait",
  order: 7,
  title: "Studio Portrait",
  tags: ["portrait", "studio", "people"],
  category: "people",
  exampleInputs: [["portrait-female-1.jpg"], ["portrait-male-1.jpg"], ["portrait-male-2.jpg"]],
});
