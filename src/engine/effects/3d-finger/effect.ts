import { defineEffect } from "@/core/effect-definition";

/**
 * 3D Figure: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "3d-finger",
  order: 5,
  title: "3D Figure",
  tags: ["3d", "collectible", "figure"],
  category: "fun",
  isHot: true,
  exampleInputs: [["portrait-female-1.jpg"], ["portrait-male-1.jpg"], ["portrait-male-2.jpg"]],
});
