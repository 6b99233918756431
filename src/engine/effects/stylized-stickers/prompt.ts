import type { EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Stylized Stickers (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Turn the main subject of this photo into a small sheet of cute kawaii stickers: one large sticker of the subject plus three smaller ones showing different cheerful expressions or poses.",
    "Draw them with simplified rounded shapes, soft cel shading and bright, cheerful colours, each sticker wrapped in a bold dark outline and a thick even white die-cut border.",
    "Space the stickers apart on a plain pure-white background with no drop shadows, so each one can be cut out after printing.",
    "Keep the subject recognisable: the same hairstyle, clothing colours and distinctive features.",
  ].join(" "),
  aspectRatio: "1:1",
};
