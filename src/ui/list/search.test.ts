import { describe, expect, it } from "vitest";
import { EFFECT_CATEGORIES, EFFECTS } from "@/core/catalogue";
import { getEffectCopy } from "@/i18n/effect-copy";
import { featuredFirst, listEffects } from "./card-data";
import { matchesQuery } from "./search";

describe("the list page's categories", () => {
  it("files every effect of the catalogue under one of the four categories, each used", () => {
    expect(EFFECTS).toHaveLength(22);
    for (const e of EFFECTS) expect(EFFECT_CATEGORIES, e.id).toContain(e.category);
    for (const c of EFFECT_CATEGORIES)
      expect(
        EFFECTS.some((e) => e.category === c),
        c,
      ).toBe(true);
  });

  it("puts the people, restoration, art and fun effects where a visitor looks for them", () => {
    const of = (id: string) => EFFECTS.find((e) => e.id === id)!.category;
    expect(of("linkedIn-profile-photo-generator")).toBe("people");
    expect(of("image-restoration")).toBe("restore");
    expect(of("watermark-remover")).toBe("restore");
    expect(of("pixel-illustration")).toBe("art");
    expect(of("stylized-stickers")).toBe("fun");
  });
});

describe("the list page's search", () => {
  const effect = { title: "Pixel Illustration", description: "Turn a photo into crisp retro pixel art." };

  it("matches the title or the description, any case, any word order, ignoring accents", () => {
    expect(matchesQuery(effect, "pixel")).toBe(true);
    expect(matchesQuery(effect, "RETRO   photo")).toBe(true);
    expect(matchesQuery({ title: "Retrato de estúdio", description: "" }, "estudio", "pt")).toBe(true);
    expect(matchesQuery(effect, "")).toBe(true);
    expect(matchesQuery(effect, "  ")).toBe(true);
  });

  it("rejects a query any of whose words is missing", () => {
    expect(matchesQuery(effect, "pixel watermark")).toBe(false);
    expect(matchesQuery(effect, "sticker")).toBe(false);
  });

  it("searches the translated copy: a Japanese visitor finds the restoration effect in Japanese", async () => {
    const effects = await listEffects("ja");
    const copy = (await getEffectCopy("ja", "image-restoration"))!;
    const word = copy.title.slice(0, 2);
    const found = effects.filter((e) => matchesQuery(e, word, "ja")).map((e) => e.id);
    expect(found).toContain("image-restoration");
    expect(found.length).toBeLessThan(effects.length);
  });
});

describe("featured effects", () => {
  it("lists hot effects, then new ones, then the rest, each group in catalogue order", async () => {
    const ordered = featuredFirst(await listEffects("en"));
    const ranks = ordered.map((e) => (e.isHot ? 0 : e.isNew ? 1 : 2));
    expect(ranks).toEqual([...ranks].sort());
    expect(ranks.filter((r) => r < 2).length).toBe(EFFECTS.filter((e) => e.isHot || e.isNew).length);
    const hot = EFFECTS.filter((e) => e.isHot).map((e) => e.id);
    expect(ordered.slice(0, hot.length).map((e) => e.id)).toEqual(hot);
  });

  it("gives every card with a rendered example its before and after images", async () => {
    const effects = await listEffects("en");
    const withPair = effects.filter((e) => e.before && e.after);
    expect(withPair.length).toBeGreaterThan(0);
    for (const e of withPair) {
      expect(e.before).toMatch(new RegExp(`^/examples/${e.id}/\\d-before\\.webp$`));
      expect(e.after).toMatch(new RegExp(`^/examples/${e.id}/\\d-after\\.webp$`));
    }
  });
});
