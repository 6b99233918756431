import { defineEffect } from "@/core/effect-definition";

/**
 * Emoji Icon: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "emoji-icon",
  order: 12,
  title: "Emoji Icon",
  tags: ["emoji", "icon", "cartoon"],
  category: "fun",
  exampleInputs: [["portrait-female-1.jpg"], ["portrait-male-1.jpg"], ["portrait-male-2.jpg"]],
});
