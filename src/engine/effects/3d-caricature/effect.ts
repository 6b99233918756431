import { defineEffect } from "@/core/effect-definition";

/**
 * 3D Caricature: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "3d-caricature",
  order: 21,
  title: "3D Caricature",
  tags: ["3d", "caricature", "fun"],
  category: "fun",
  isNew: true,
  exampleInputs: [["portrait-female-1.jpg"], ["portrait-male-1.jpg"], ["portrait-male-2.jpg"]],
});
