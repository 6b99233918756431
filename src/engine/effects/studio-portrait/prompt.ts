import { KEEP_IDENTITY, type EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Studio Portrait (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Turn this photo into a low-key studio portrait of the same person: a solid pure black background and a plain black crew-neck t-shirt replacing their clothes.",
    "Light the face with dramatic side lighting from one side, letting the other side fall softly into shadow.",
    "Head-and-shoulders framing, sharp focus on the eyes, realistic skin texture, minimal and moody.",
    KEEP_IDENTITY,
    "Keep their hairstyle and expression.",
  ].join(" "),
  aspectRatio: "4:5",
};
