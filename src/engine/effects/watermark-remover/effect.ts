import { z } from "zod";
import { defineEffect } from "@/core/effect-definition";

const rightsOptions = z
  .object({
    rightsConfirmed: z.literal(true, {
      error: "Please confirm that you have the right to edit this image",
    }),
  })
  .strict();

/**
 * Watermark Remover: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "watermark-remover",
  order: 3,
  title: "Watermark Remover",
  tags: ["cleanup", "watermark"],
  category: "restore",
  isHot: true,
  options: rightsOptions,
  optionsForm: "rightsConfirmed",
  // Marks it removes without a trace: on the tiled fixture a small "demo-watermark.example"
  // line and faint © rings stay readable, which the effect's own card must not show.
  exampleInputs: [["watermark-9-proof-yellow-cat.jpg"], ["watermark-10-copy-yellow-meadow.jpg"]],
});
