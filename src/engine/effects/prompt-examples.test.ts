import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { conceptsIn } from "../shared/prompt-words";
import { paletteFor } from "./hug-my-younger-self/palette";
import { lookFromPrompt } from "./y2k-style-ai/look";

/**
 * Every effect page shows example prompts in its own language (the FAQ of
 * src/i18n/effect-copy/<locale>/<effect>.json). For the local effects that read the prompt's
 * words, the translated examples must steer the render exactly like the English one does:
 * a German user typing the German example gets the look the English example promises.
 */
const LOCALES = ["en", "ar", "de", "es", "fr", "it", "ja", "ko", "pt", "tw", "vi", "zh"] as const;
const COPY = path.resolve(import.meta.dirname, "../../i18n/effect-copy");

/** Quoted text in every locale's quotation style: "", “”, «», „“, 「」. */
const QUOTED = /"([^"]+)"|“([^”]+)”|«\s*([^»]+?)\s*»|„([^“”]+)[“”]|「([^」]+)」/g;

function examples(locale: string, effect: string): string[] {
  const copy = JSON.parse(readFileSync(path.join(COPY, locale, `${effect}.json`), "utf8")) as {
    faq: { answer: string }[];
  };
  return copy.faq.flatMap((q) => [...q.answer.matchAll(QUOTED)].map((m) => m.slice(1).find(Boolean)!));
}

const wrap = (h: number) => ((h % 360) + 360) % 360;

/** What the Y2K look takes from a prompt's words: everything but the prompt hash's jitter. */
function y2kReading(prompt: string) {
  const look = lookFromPrompt(prompt);
  // look.ts shifts every hue by the same hash-derived jitter of -10..+10 degrees.
  const jitter = ((look.hash >>> 3) % 21) - 10;
  const { background, tone, metalTint, sparkle, glow } = look;
  return { hues: look.hues.map((h) => wrap(h - jitter)), background, tone, metalTint, sparkle, glow };
}

/** Which of the hug's mood palettes a prompt picks ("own" = a palette hashed from the text). */
function hugReading(prompt: string): string {
  const palette = JSON.stringify(paletteFor(prompt));
  const named = ["sunset", "snow", "beach", "night", "spring", ""];
  return named.find((p) => JSON.stringify(paletteFor(p)) === palette) ?? "own";
}

const EFFECTS: Record<string, (prompt: string) => unknown> = {
  "y2k-style-ai": y2kReading,
  "hug-my-younger-self": hugReading,
};

describe.each(Object.keys(EFFECTS))("%s: translated example prompts", (effect) => {
  const english = examples("en", effect);

  it("has English examples to compare with", () => {
    expect(english.length).toBeGreaterThan(0);
  });

  it.each(LOCALES.filter((l) => l !== "en"))("%s examples steer the look like the English ones", (locale) => {
    const local = examples(locale, effect);
    expect(local).toHaveLength(english.length);
    const read = EFFECTS[effect]!;
    local.forEach((example, i) => {
      expect({ example, reading: read(example) }).toEqual({ example, reading: read(english[i]!) });
    });
  });
});

describe("y2k-style-ai: translated examples name the same things", () => {
  // The Y2K examples translate word for word, so they must also read as the same concepts.
  // (The hug's "golden-hour light" became "sunset" or "golden light" in some languages: those
  // differ as concepts but pick the same palette, which the test above checks.)
  const concepts = (p: string) => [...conceptsIn(p)].sort();
  const english = examples("en", "y2k-style-ai").map(concepts);
  it.each(LOCALES.filter((l) => l !== "en"))("%s", (locale) => {
    expect(examples(locale, "y2k-style-ai").map(concepts)).toEqual(english);
  });
});
