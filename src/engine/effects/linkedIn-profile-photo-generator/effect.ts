import { defineEffect } from "@/core/effect-definition";

/**
 * LinkedIn Profile Photo Generator: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "linkedIn-profile-photo-generator",
  order: 14,
  title: "LinkedIn Profile Photo Generator",
  tags: ["headshot", "business", "portrait"],
  category: "people",
  exampleInputs: [["portrait-female-1.jpg"], ["portrait-male-1.jpg"], ["portrait-male-2.jpg"]],
});
