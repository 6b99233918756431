import { defineEffect } from "@/core/effect-definition";

/**
 * Stylized Stickers: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "stylized-stickers",
  order: 1,
  title: "Stylized Stickers",
  tags: ["sticker", "cartoon", "kawaii"],
  category: "fun",
  exampleInputs: [["portrait-female-1.jpg"], ["portrait-male-1.jpg"], ["pet-2-raccoon.jpg"]],
});
