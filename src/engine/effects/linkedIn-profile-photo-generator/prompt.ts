import { KEEP_IDENTITY, type EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for LinkedIn Profile Photo Generator (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Create a professional corporate headshot of the same person for a LinkedIn profile.",
    "Head-and-shoulders, facing the camera, centred with a little headroom, with the face filling about 60% of the frame.",
    "Dress them in business attire: a well-fitted dark suit jacket or blazer over a plain shirt or blouse.",
    "Use a solid, evenly lit neutral light-grey background and soft, flattering studio lighting; natural friendly expression, sharp focus, realistic skin texture without heavy retouching.",
    KEEP_IDENTITY,
    "Keep their hairstyle.",
  ].join(" "),
  aspectRatio: "1:1",
};
