import { KEEP_IDENTITY, type EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Y2K Style AI (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Reimagine this photo as a Y2K fashion illustration inspired by late-1990s and early-2000s pop fashion.",
    "Dress the person in futuristic apparel (metallic or holographic fabrics, glossy vinyl, tinted shades, chunky platform shoes), use neon colours such as hot pink, electric blue and lime, an airbrushed glossy finish, and a chrome or gradient background with sparkles.",
    KEEP_IDENTITY,
  ].join(" "),
  aspectRatio: "3:4",
};
