import { defineEffect } from "@/core/effect-definition";

/**
 * GTA Style Filter: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "gta-style-filter",
  order: 4,
  title: "GTA Style Filter",
  tags: ["game", "poster", "illustration"],
  category: "art",
  isHot: true,
  exampleInputs: [["portrait-female-1.jpg"], ["pet-1-cat.png"], ["landscape-1-meadow-cc0.jpg"]],
});
