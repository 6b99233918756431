import type { EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Watermark Remover (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Remove every watermark from this image: overlaid text, logos, date stamps, captions and semi-transparent overlays or patterns, wherever they are.",
    "Fill the areas behind them so they blend seamlessly with the surrounding content, continuing textures, edges, lighting and colour.",
    "Change nothing else: same framing, proportions, colours, sharpness and every other detail of the picture.",
  ].join(" "),
};
