import { findConcepts, type Concept } from "../../shared/prompt-words";

/**
 * Y2K look parameters from the user's free-text prompt. Colour words and mood words (in any
 * of the site's 12 languages, read through shared/prompt-words.ts) map to hues, a background
 * style and a tone; a hash of the whole prompt jitters hues and layout so
 * any two different prompts differ, and picks the hues when no word is recognised.
 */

export type BackgroundStyle = "gradient" | "chrome" | "holographic" | "grid";
export type Tone = "neon" | "pastel" | "night";

export interface Look {
  /** Primary, secondary and accent hues in degrees. */
  hues: [number, number, number];
  background: BackgroundStyle;
  tone: Tone;
  /** Chroma of metallic backgrounds (silver is almost grey, gold is warm). */
  metalTint: number;
  /** Sparkle density multiplier (0 = none). */
  sparkle: number;
  /** Bloom strength multiplier. */
  glow: number;
  /** Direction of gradients and pattern phase, radians. */
  angle: number;
  /** 32-bit hash of the normalised prompt (0 for an empty prompt). */
  hash: number;
}

/** Colour concepts -> hue (degrees). */
const COLOURS: Readonly<Partial<Record<Concept, number>>> = {
  pink: 325,
  magenta: 305,
  fuchsia: 310,
  red: 355,
  cherry: 350,
  coral: 10,
  orange: 25,
  peach: 22,
  yellow: 55,
  lemon: 58,
  gold: 45,
  lime: 95,
  green: 135,
  emerald: 145,
  mint: 160,
  teal: 175,
  turquoise: 178,
  aqua: 182,
  cyan: 188,
  sky: 200,
  blue: 218,
  cobalt: 225,
  navy: 230,
  indigo: 250,
  lavender: 265,
  lilac: 275,
  violet: 280,
  purple: 285,
  plum: 295,
};

interface Mood {
  hues?: [number, number, number];
  background?: BackgroundStyle;
  tone?: Tone;
  sparkle?: number;
  glow?: number;
  metalTint?: number;
}

const DREAMY: Mood = { hues: [300, 265, 195], tone: "pastel", glow: 1.5, sparkle: 1.3 };
const PASTEL: Mood = { hues: [330, 190, 55], tone: "pastel" };
const CYBER: Mood = { hues: [188, 305, 130], background: "grid", tone: "night", glow: 1.3 };
const SUNSET: Mood = { hues: [25, 330, 275], background: "gradient", tone: "neon" };
const NIGHT: Mood = { hues: [305, 215, 175], tone: "night", sparkle: 1.4 };
const HOLO: Mood = { hues: [300, 180, 60], background: "holographic" };
const CHROME: Mood = { background: "chrome" };
const GLITTER: Mood = { sparkle: 2.2 };
const SPACE: Mood = { hues: [270, 200, 320], tone: "night", sparkle: 2 };
const GOLD: Mood = { hues: [45, 30, 52], background: "chrome", metalTint: 0.85 };
const BEACH: Mood = { hues: [185, 45, 330], background: "gradient", tone: "neon" };

/** Mood, material and setting concepts -> look changes (words: shared/prompt-words.ts). */
const MOODS: Readonly<Partial<Record<Concept, Mood>>> = {
  dreamy: DREAMY,
  soft: DREAMY,
  cloud: DREAMY,
  angel: DREAMY,
  pastel: PASTEL,
  cute: PASTEL,
  candy: PASTEL,
  cyber: CYBER,
  futuristic: CYBER,
  sunset: SUNSET,
  night: NIGHT,
  moon: NIGHT,
  party: NIGHT,
  holographic: HOLO,
  rainbow: HOLO,
  chrome: CHROME,
  silver: { background: "chrome", metalTint: 0.15 },
  gold: GOLD,
  sparkle: GLITTER,
  glam: GLITTER,
  diamond: GLITTER,
  space: SPACE,
  star: SPACE,
  beach: BEACH,
  sea: BEACH,
  summer: BEACH,
  tropical: BEACH,
  gradient: { background: "gradient" },
  neon: { tone: "neon" },
};

/** The default Y2K palette: hot pink, violet, cyan on chrome. */
const DEFAULT_HUES: [number, number, number] = [322, 278, 190];

/** FNV-1a, 32-bit: a stable hash of the prompt text. */
export function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // A final avalanche so prompts differing in one character spread over all bits.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

const wrap = (h: number): number => ((h % 360) + 360) % 360;

/** The look for a prompt. Deterministic; the empty prompt gives the default chrome look. */
export function lookFromPrompt(prompt: string): Look {
  const text = prompt.toLowerCase().normalize("NFKC").trim().slice(0, 500);
  const hash = text ? hashText(text) : 0;
  // Concepts in the order they appear, from the prompt's words in any of the site's languages.
  const concepts = findConcepts(prompt).map((m) => m.concept);

  const colourHues: number[] = [];
  let background: BackgroundStyle | undefined;
  let tone: Tone | undefined;
  let metalTint: number | undefined;
  let sparkle = 1;
  let glow = 1;
  let moodHues: [number, number, number] | undefined;
  let recognised = false;
  for (const concept of concepts) {
    const hue = COLOURS[concept];
    if (hue !== undefined && !colourHues.includes(hue)) colourHues.push(hue);
    const mood = MOODS[concept];
    if (mood) {
      // The first word of each kind wins: "pastel night" is pastel, "night pastel" is night.
      background ??= mood.background;
      tone ??= mood.tone;
      metalTint ??= mood.metalTint;
      moodHues ??= mood.hues;
      sparkle = Math.max(sparkle, mood.sparkle ?? 1);
      glow = Math.max(glow, mood.glow ?? 1);
    }
    if (hue !== undefined || mood) recognised = true;
  }

  let hues: number[];
  if (!text) {
    hues = [...DEFAULT_HUES];
  } else if (!recognised) {
    // Nothing recognised: the hash picks a harmonious triad so unknown prompts still steer colour.
    const base = hash % 360;
    hues = [base, base + 70 + ((hash >>> 9) % 80), base + 190 + ((hash >>> 17) % 60)];
  } else {
    hues = [...colourHues];
    // Colour words first, then the mood's hues (a mood may be one family, like gold), then the
    // defaults, until there are three.
    for (const h of moodHues ?? []) if (hues.length < 3 && !hues.includes(h)) hues.push(h);
    for (const h of DEFAULT_HUES) {
      if (hues.length >= 3) break;
      if (hues.every((x) => Math.abs(wrap(x - h + 180) - 180) > 20)) hues.push(h);
    }
    while (hues.length < 3) hues.push(hues[hues.length - 1]! + 120);
  }
  // Every non-empty prompt gets its own small hue shift (up to +-10 degrees).
  const jitter = text ? ((hash >>> 3) % 21) - 10 : 0;

  if (!background) {
    background = !text
      ? "chrome"
      : recognised
        ? "gradient"
        : (["gradient", "chrome", "holographic"] as const)[(hash >>> 11) % 3]!;
  }
  return {
    hues: [wrap(hues[0]! + jitter), wrap(hues[1]! + jitter), wrap(hues[2]! + jitter)],
    background,
    tone: tone ?? "neon",
    metalTint: metalTint ?? 0.9,
    sparkle,
    glow,
    angle: text ? ((hash >>> 5) % 360) * (Math.PI / 180) : Math.PI * 0.6,
    hash,
  };
}
