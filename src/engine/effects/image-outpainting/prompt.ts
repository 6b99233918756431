import { OUTPAINT_EDGES, type OutpaintEdge } from "@/core/catalogue-constants";
import { joinWords, nearestAspectRatio, type AspectRatio, type EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Image Outpainting (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  // The edges and the amount are folded in by buildPrompt.
  instruction: [
    "Extend this image beyond its original borders (outpainting).",
    "Keep every original pixel exactly as it is, in the same place and at the same scale: do not crop, rescale, recolour or redraw the original area.",
    "Fill only the new area with content that continues the scene naturally, matching perspective, lighting, colours, textures and grain, with no visible seam, frame or border.",
  ].join(" "),
  extend: ({ options, inputSize }) => outpaintPlan(options, inputSize),
};

/** The outpainting sentence (which edges, how far) and the extended canvas's aspect ratio. */
function outpaintPlan(
  options: Record<string, unknown>,
  size: { width: number; height: number } | undefined,
): { text: string; aspectRatio?: AspectRatio } {
  const given = Array.isArray(options.edges) ? options.edges : [];
  const edges = OUTPAINT_EDGES.filter((e) => given.includes(e));
  const chosen: readonly OutpaintEdge[] = edges.length ? edges : OUTPAINT_EDGES;
  const amount = typeof options.amount === "number" ? Math.min(1, Math.max(0.05, options.amount)) : 0.25;
  const pct = Math.round(amount * 100);
  const keep = OUTPAINT_EDGES.filter((e) => !chosen.includes(e));
  const list = chosen.length === 4 ? "all four edges (top, bottom, left and right)" : joinWords(chosen);
  const text = [
    `Extend the canvas on ${list} only, adding new content about ${pct}% of the original image's size beyond each of ${chosen.length === 1 ? "that edge" : "those edges"}.`,
    keep.length
      ? `Do not extend the ${joinWords(keep)} ${keep.length === 1 ? "edge" : "edges"}: the original image must still touch ${keep.length === 1 ? "that border" : "those borders"} of the result.`
      : "The original image stays centred in the larger canvas.",
  ].join(" ");
  if (!size || size.width <= 0 || size.height <= 0) return { text };
  const w = size.width * (1 + amount * (Number(chosen.includes("left")) + Number(chosen.includes("right"))));
  const h = size.height * (1 + amount * (Number(chosen.includes("top")) + Number(chosen.includes("bottom"))));
  return { text, aspectRatio: nearestAspectRatio(w / h) };
}
