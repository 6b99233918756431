import { defineEffect } from "@/core/effect-definition";

/**
 * 16-Bit Video Game Character: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "16-bit-video-game-character",
  order: 20,
  title: "16-Bit Video Game Character",
  tags: ["pixel art", "16-bit", "game"],
  category: "art",
  isNew: true,
  exampleInputs: [["portrait-female-1.jpg"], ["portrait-male-1.jpg"], ["portrait-male-2.jpg"]],
});
