import { z } from "zod";
import { defineEffect } from "@/core/effect-definition";

const consentOptions = z
  .object({
    adultConsent: z.literal(true, {
      error: "Please confirm that the person shown is an adult who consented to this edit",
    }),
  })
  .strict();

/**
 * Bust Enhancement: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "boob-boost-effect",
  order: 19,
  title: "Bust Enhancement",
  tags: ["body", "retouch"],
  category: "people",
  isNew: true,
  options: consentOptions,
  optionsForm: "adultConsent",
  // No examples: every fixture is a real person who never agreed to a body edit
  // (examplesWithheld); the contact sheet and scores use the scoring set instead.
  exampleInputs: [],
});
