import { defineEffect } from "@/core/effect-definition";

/**
 * Inverted Face Filter: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "inverted-face-filter",
  order: 18,
  title: "Inverted Face Filter",
  tags: ["mirror", "fun"],
  category: "fun",
  exampleInputs: [["portrait-female-1.jpg"], ["portrait-male-1.jpg"], ["portrait-male-2.jpg"]],
});
