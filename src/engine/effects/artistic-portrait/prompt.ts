import { KEEP_IDENTITY, type EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Artistic Portrait (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Give this portrait a cinematic film look, like a still frame from a feature film shot on 35 mm film stock.",
    "Apply a rich movie-style colour grade with cool teal shadows, warm natural skin tones, deeper contrast and soft highlight roll-off, and add a fine, visible analog film grain over the whole frame.",
    "Keep the composition, the pose, the clothing and the background; only the grade, the lighting mood and the grain change.",
    KEEP_IDENTITY,
    "No letterbox bars.",
  ].join(" "),
};
