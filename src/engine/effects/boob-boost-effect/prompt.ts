import { KEEP_IDENTITY, type EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Bust Enhancement (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Retouch this photo of a consenting adult: add subtle, natural-looking volume to the bust, a modest change that fits their build and looks like an unedited photo.",
    "Keep the clothing exactly as it is, with the same coverage, fit and fabric; this is a tasteful, non-explicit retouch.",
    "Keep the face, pose, background and lighting unchanged.",
    KEEP_IDENTITY,
  ].join(" "),
};
