import { z } from "zod";
import { defineEffect } from "@/core/effect-definition";
import { OUTPAINT_EDGES } from "@/core/catalogue-constants";

const outpaintOptions = z
  .object({
    edges: z
      .array(z.enum(OUTPAINT_EDGES))
      .min(1, "Choose at least one edge to extend")
      .max(4)
      .refine((e) => new Set(e).size === e.length, "Each edge may be chosen once")
      .default([...OUTPAINT_EDGES]),
    /** Fraction of the original size added on each chosen edge. */
    amount: z.number().min(0.05).max(1).default(0.25),
  })
  .strict();

/**
 * Image Outpainting: the catalogue entry (flags, input rule, options, example inputs). Browser-safe:
 * nothing server-only is imported here (render.ts, rules.ts and prompt.ts are server-only).
 */
export const effect = defineEffect({
  id: "image-outpainting",
  order: 16,
  title: "Image Outpainting",
  tags: ["extend", "expand", "canvas"],
  category: "restore",
  options: outpaintOptions,
  optionsForm: "outpaintEdges",
  exampleInputs: [["landscape-1-meadow-cc0.jpg"], ["object-coffee.png"], ["scene-rocket-launch.jpg"]],
});
