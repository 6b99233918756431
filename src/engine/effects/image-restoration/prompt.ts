import type { EffectPrompt } from "../../shared/prompt-kit";

/** What a hosted image model is told for Image Restoration (server-only: never imported by the browser). */
export const prompt: EffectPrompt = {
  instruction: [
    "Restore this old, faded or damaged photograph.",
    "Repair scratches, creases, tears, stains, dust and missing areas by reconstructing plausible detail that matches the surrounding picture.",
    "If it is black-and-white or sepia, colorize it with natural, period-appropriate colours and realistic skin tones; otherwise remove fading and colour casts.",
    "Recover contrast, sharpen, and upscale it into a crisp, high-resolution photo.",
    "Keep the composition, framing, every person's identity, expression and pose, the clothing and the background as they are; do not add or remove people or objects and do not beautify faces.",
  ].join(" "),
};
