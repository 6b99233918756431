import { describe, expect, it } from "vitest";
import {
  CONCEPTS,
  MAX_PROMPT_CHARS,
  PROMPT_LANGUAGES,
  conceptsIn,
  findConcepts,
  normalisePrompt,
  wordsOf,
  type Concept,
} from "./prompt-words";

const sorted = (prompt: string) => [...conceptsIn(prompt)].sort();

describe("prompt vocabulary", () => {
  it("has words for every concept in all 12 languages", () => {
    for (const concept of CONCEPTS)
      for (const language of PROMPT_LANGUAGES)
        expect(
          wordsOf(concept, language).filter((w) => w.trim()),
          `${concept}/${language}`,
        ).not.toHaveLength(0);
  });

  it("gives no word to two concepts", () => {
    const owner = new Map<string, Concept>();
    const clashes: string[] = [];
    for (const concept of CONCEPTS)
      for (const language of PROMPT_LANGUAGES)
        for (const word of wordsOf(concept, language)) {
          const key = normalisePrompt(word);
          const other = owner.get(key);
          if (other && other !== concept) clashes.push(`${word}: ${other} / ${concept}`);
          owner.set(key, concept);
        }
    expect(clashes).toEqual([]);
  });

  it("reads each concept's own words, alone, as that concept", () => {
    const wrong: string[] = [];
    for (const concept of CONCEPTS)
      for (const language of PROMPT_LANGUAGES)
        for (const word of wordsOf(concept, language)) {
          const plain = word.replace(/^\*|[*+]$/g, "");
          const got = conceptsIn(plain);
          if (got.length !== 1 || got[0] !== concept)
            wrong.push(`${language} ${word} -> ${got.join(",")} (${concept})`);
        }
    expect(wrong).toEqual([]);
  });
});

describe("reading prompts", () => {
  it("understands English plurals and the words the Y2K page promises", () => {
    expect(sorted("electric blue gradient with sparkles")).toEqual(["blue", "gradient", "sparkle"]);
    expect(conceptsIn("Sparkle")).toEqual(["sparkle"]);
    expect(conceptsIn("starry skies")).toEqual(["star", "sky"]);
  });

  it("keeps the concepts in the order they appear, with repeats", () => {
    expect(findConcepts("pink night, then pink again").map((m) => m.concept)).toEqual([
      "pink",
      "night",
      "pink",
    ]);
    expect(conceptsIn("night pastel")).toEqual(["night", "pastel"]);
  });

  it("matches whole words, not letters inside other words", () => {
    expect(conceptsIn("a nice price for the season, let's start")).toEqual([]);
    expect(conceptsIn("honeymoon blush")).toEqual([]);
    expect(conceptsIn("frisches Brot, cats or dogs")).toEqual([]);
    expect(conceptsIn("Gründe")).toEqual([]);
  });

  it("understands German, French, Spanish, Italian and Portuguese inflections", () => {
    expect(sorted("rosa und silbernes Chrom, verträumte Stimmung")).toEqual([
      "chrome",
      "dreamy",
      "pink",
      "silver",
    ]);
    expect(conceptsIn("dunkelblauen Himmel")).toEqual(["blue", "sky"]);
    expect(conceptsIn("goldenen Stunde")).toEqual(["gold"]);
    expect(conceptsIn("ambiance rêveuse, étoiles bleues")).toEqual(["dreamy", "star", "blue"]);
    expect(conceptsIn("luces doradas, noche soñadora")).toEqual(["gold", "night", "dreamy"]);
    expect(conceptsIn("stelle dorate, verdi")).toEqual(["star", "gold", "green"]);
    expect(conceptsIn("flores vermelhas")).toEqual(["flower", "red"]);
  });

  it("finds accented words typed without their accents", () => {
    expect(sorted("degrade bleu, ambiance reveuse")).toEqual(["blue", "dreamy", "gradient"]);
    expect(conceptsIn("gruen und weiss")).toEqual(["green", "white"]);
    expect(findConcepts("soñador / sonador").map((m) => m.concept)).toEqual(["dreamy", "dreamy"]);
  });

  it("finds Chinese, Japanese and Korean words inside running text, longest first", () => {
    expect(conceptsIn("粉红色的背景")).toEqual(["pink"]); // not red (红)
    expect(conceptsIn("金属质感")).toEqual(["chrome"]); // not gold
    expect(conceptsIn("黄金时刻")).toEqual(["gold"]); // not yellow (黄)
    expect(conceptsIn("핑크와 실버")).toEqual(["pink", "silver"]);
    expect(conceptsIn("ピンクとシルバーのクローム")).toEqual(["pink", "silver", "chrome"]);
    expect(conceptsIn("銀河の夜")).toEqual(["space", "night"]); // the galaxy is not silver
  });

  it("reads Arabic with and without the article and proclitics, with or without diacritics", () => {
    for (const text of ["وردي", "الوردي", "والوردي", "وردية"])
      expect(conceptsIn(text), text).toEqual(["pink"]);
    expect(conceptsIn("وفضي")).toEqual(["silver"]);
    expect(conceptsIn("تدرّج")).toEqual(["gradient"]);
    expect(conceptsIn("تدرج ازرق")).toEqual(["gradient", "blue"]);
    expect(conceptsIn("بالليل")).toEqual(["night"]);
  });

  it("reads Vietnamese by its diacritics and multi-word colours", () => {
    expect(conceptsIn("màu hồng")).toEqual(["pink"]);
    expect(conceptsIn("hông")).toEqual([]);
    expect(conceptsIn("xanh lá")).toEqual(["green"]); // not blue
    expect(conceptsIn("xanh điện")).toEqual(["blue"]);
    expect(conceptsIn("bạc hà")).toEqual(["mint"]); // not silver
    expect(conceptsIn("quần áo bạc màu")).toEqual([]); // "faded clothes", not silver
    // Decomposed input (combining marks) reads like composed input.
    expect(conceptsIn("hồng".normalize("NFD"))).toEqual(["pink"]);
  });

  it("normalises width and case (NFKC)", () => {
    expect(conceptsIn("ＰＩＮＫ")).toEqual(["pink"]);
    expect(conceptsIn("ﾋﾟﾝｸ")).toEqual(["pink"]);
    expect(conceptsIn("PINK Chrome")).toEqual(["pink", "chrome"]);
  });

  it("reads only the first 500 characters", () => {
    const filler = "x".repeat(MAX_PROMPT_CHARS - 5);
    expect(conceptsIn(`${filler} pink`)).toEqual(["pink"]);
    expect(conceptsIn(`${filler}      pink`)).toEqual([]);
    expect(conceptsIn("")).toEqual([]);
    expect(conceptsIn("   ")).toEqual([]);
  });
});
