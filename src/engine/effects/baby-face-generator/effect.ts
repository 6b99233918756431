import { defineEffect } from "@/core/effect-definition";

/**
 * Baby Face Generator: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "baby-face-generator",
  order: 6,
  title: "Baby Face Generator",
  tags: ["people", "fun", "family"],
  category: "people",
  input: { mode: "together", min: 1, max: 2, describe: "two parent photos, or one couple photo" },
  exampleInputs: [
    ["portrait-female-1.jpg", "portrait-male-1.jpg"],
    ["portrait-female-3-nasa.png", "portrait-male-2.jpg"],
    ["couple-1-daguerreotype-1850s.jpg"],
  ],
});
