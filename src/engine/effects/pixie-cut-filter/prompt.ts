import { KEEP_IDENTITY, type EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Pixie Cut Filter (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Give the person in this photo a chic pixie cut in their natural hair colour: cropped close at the back and sides, with slightly longer textured layers on top and a soft side-swept fringe.",
    "Replace their current hair completely, with a realistic hairline and strands that match the photo's lighting.",
    "Keep the face, expression, clothing, pose, background and lighting unchanged.",
    KEEP_IDENTITY,
  ].join(" "),
};
