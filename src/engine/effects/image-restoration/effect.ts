import { defineEffect } from "@/core/effect-definition";

/**
 * Image Restoration: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "image-restoration",
  order: 2,
  title: "Image Restoration",
  tags: ["restore", "colorize", "upscale"],
  category: "restore",
  isHot: true,
  exampleInputs: [
    ["old-bw-1-migrant-mother-1936.jpg"],
    ["couple-1-daguerreotype-1850s.jpg"],
    ["old-damaged-2-daguerreotype-1850s.jpg"],
  ],
});
