import type { EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for 16-Bit Video Game Character (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Turn the person in this photo into a retro 16-bit video game character, as in classic 16-bit console role-playing and platform games.",
    "Draw a full-body character sprite in a heroic idle pose, in crisp pixel art with hard pixel edges and clear dark outlines, using a palette of at most 16 colours.",
    "Keep their hairstyle, hair colour, skin tone and outfit recognisable.",
    "Place the sprite on a plain single-colour background, with no interface or health bars.",
  ].join(" "),
  aspectRatio: "1:1",
};
