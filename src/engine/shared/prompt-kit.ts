/**
 * What every effect's hosted prompt (src/engine/effects/<id>/prompt.ts) is made of. Server
 * only: nothing under src/app or src/ui may import a prompt (a test greps the client
 * bundle for every prompt's text).
 */

/** Aspect ratios that both Nano Banana routes (fal and Gemini) accept. */
export const ASPECT_RATIOS = [
  "21:9",
  "16:9",
  "3:2",
  "4:3",
  "5:4",
  "1:1",
  "4:5",
  "3:4",
  "2:3",
  "9:16",
] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];

/** The parts of a render request that shape the prompt. */
export interface PromptInput {
  effectId: string;
  /** Validated catalogue options (outpainting: edges, amount). */
  options: Record<string, unknown>;
  /** The user's optional mood note ("" for none). */
  mood: string;
  /** How many images the user sent (baby face: one couple photo or two parent photos). */
  imageCount: number;
  /** Size of the first input image, used to size an outpainted canvas. */
  inputSize?: { width: number; height: number };
}

/** One effect's row of the prompt table. */
export interface EffectPrompt {
  /** The instruction sent with the user's image(s). */
  instruction: string;
  /** Output shape the copy implies (a square grid, a Letter page); unset lets the model keep the input's. */
  aspectRatio?: AspectRatio;
  /**
   * A sentence that depends on the request (which edges to extend, how many photos), and
   * the aspect ratio it implies, appended after the instruction.
   */
  extend?: (input: PromptInput) => { text: string; aspectRatio?: AspectRatio };
}

/** Keeps people recognisable; appended to every effect that redraws a person. */
export const KEEP_IDENTITY =
  "Keep the person recognisably the same: preserve their facial features, face shape, skin tone, eye colour and apparent age.";

/** Appended to every prompt: hosted models like to add captions, logos and signatures. */
export const NO_TEXT = "Do not add any text, captions, labels, logos, signatures or watermarks.";

/** The supported aspect ratio closest to `ratio` (compared on a log scale, so 2:1 and 1:2 are equally far from 1:1). */
export function nearestAspectRatio(ratio: number): AspectRatio {
  let best: AspectRatio = "1:1";
  let bestDistance = Infinity;
  for (const r of ASPECT_RATIOS) {
    const [a, b] = r.split(":").map(Number) as [number, number];
    const distance = Math.abs(Math.log(a / b) - Math.log(ratio));
    if (distance < bestDistance) {
      best = r;
      bestDistance = distance;
    }
  }
  return best;
}

/** "a", "a and b", "a, b and c". */
export function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}
