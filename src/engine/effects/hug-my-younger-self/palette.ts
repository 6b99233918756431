import { conceptsIn, type Concept } from "../../shared/prompt-words";

/**
 * Moods for the shared background and grade: mood words in the user's prompt (in any of the
 * site's 12 languages, read through shared/prompt-words.ts) pick a palette;
 * any other text gets a stable palette derived from a hash of it (same text, same colours).
 */
export type Rgb = [number, number, number];
export interface Palette {
  /** Background gradient, top to bottom (one hue family, so the frame's corners agree). */
  top: Rgb;
  bottom: Rgb;
  /** Colour of the out-of-focus light discs. */
  bokeh: Rgb;
}

const MOODS: ReadonlyArray<[ReadonlyArray<Concept>, Palette]> = [
  [["sunset", "gold"], { top: [255, 178, 120], bottom: [196, 92, 70], bokeh: [255, 214, 150] }],
  [
    ["snow", "winter", "christmas", "ice"],
    { top: [228, 238, 250], bottom: [160, 182, 215], bokeh: [255, 255, 255] },
  ],
  [["beach", "sea", "summer"], { top: [176, 228, 236], bottom: [70, 160, 186], bokeh: [240, 252, 255] }],
  [["night", "star", "moon"], { top: [48, 56, 104], bottom: [14, 18, 48], bokeh: [255, 214, 150] }],
  [["spring", "flower", "garden"], { top: [214, 238, 186], bottom: [118, 180, 112], bokeh: [255, 226, 240] }],
];
/** No prompt: warm golden light, the effect's signature mood. */
const DEFAULT: Palette = { top: [252, 222, 176], bottom: [206, 146, 104], bokeh: [255, 240, 205] };

/** FNV-1a: a small, stable string hash. */
export function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function hsl(h: number, s: number, l: number): Rgb {
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

export function paletteFor(prompt: string): Palette {
  const text = prompt.trim();
  if (!text) return DEFAULT;
  // The first mood in the list above that the prompt mentions, in any of the site's languages.
  const concepts = new Set(conceptsIn(text));
  for (const [moodConcepts, palette] of MOODS) if (moodConcepts.some((c) => concepts.has(c))) return palette;
  const hue = hash(text.toLowerCase()) % 360;
  return { top: hsl(hue, 0.55, 0.78), bottom: hsl(hue, 0.45, 0.45), bokeh: hsl(hue, 0.7, 0.9) };
}
