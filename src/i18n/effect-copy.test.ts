import { describe, expect, it } from "vitest";
import { getEffectCopy, resolveEffectCopy, type EffectCopyFile } from "./effect-copy";

const faq = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ question: `${tag} q${i + 1}?`, answer: `${tag} a${i + 1}` }));
const copy = (tag: string) => ({
  title: `${tag} title`,
  description: `${tag} description`,
  formTitle: `${tag} form`,
  formDesc: `${tag} form description`,
  resultTitle: `${tag} results`,
  faq: faq(tag, 5),
});

/** Fixture catalogue: "fixture-effect" has copy only in English. */
const english: EffectCopyFile = {
  defaultFaq: faq("en default", 4),
  effects: { "fixture-effect": copy("en"), "both-effect": copy("en both") },
};
const german: EffectCopyFile = {
  defaultFaq: faq("de default", 4),
  effects: { "both-effect": copy("de both") },
};

describe("effect copy fallback (spec: English copy, 4 default FAQ entries)", () => {
  it("uses the locale's own copy where it exists", () => {
    expect(resolveEffectCopy(german, english, "both-effect")).toMatchObject({
      title: "de both title",
      fallback: false,
    });
  });

  it("falls back to the English copy with the locale's 4 default FAQ entries", () => {
    const got = resolveEffectCopy(german, english, "fixture-effect")!;
    expect(got.title).toBe("en title");
    expect(got.description).toBe("en description");
    expect(got.faq).toEqual(german.defaultFaq);
    expect(got.faq).toHaveLength(4);
    expect(got.fallback).toBe(true);
  });

  it("English itself is never a fallback; unknown ids have no copy", async () => {
    expect(resolveEffectCopy(english, english, "fixture-effect")).toMatchObject({
      fallback: false,
      faq: english.effects["fixture-effect"]!.faq,
    });
    expect(resolveEffectCopy(german, english, "nope")).toBeNull();
    expect(await getEffectCopy("de", "no-such-effect")).toBeNull();
    expect((await getEffectCopy("de", "pixel-illustration"))?.fallback).toBe(false);
  });
});
