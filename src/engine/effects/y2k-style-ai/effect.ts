import { defineEffect } from "@/core/effect-definition";

/**
 * Y2K Style AI: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "y2k-style-ai",
  order: 22,
  title: "Y2K Style AI",
  tags: ["y2k", "fashion", "neon"],
  category: "art",
  isNew: true,
  acceptsPrompt: true,
  exampleInputs: [["portrait-female-1.jpg"], ["portrait-male-1.jpg"], ["portrait-male-2.jpg"]],
});
