import { describe, expect, it } from "vitest";
import { EFFECTS, getEffect, getEffectByImageType, operatorOptions } from "./catalogue";

const SPEC_IDS = [
  "stylized-stickers",
  "image-restoration",
  "watermark-remover",
  "gta-style-filter",
  "3d-finger",
  "baby-face-generator",
  "studio-portrait",
  "artistic-portrait",
  "coloring-page",
  "pixel-illustration",
  "hair-style-generator",
  "emoji-icon",
  "image-to-line-drawing",
  "linkedIn-profile-photo-generator",
  "pixie-cut-filter",
  "image-outpainting",
  "hug-my-younger-self",
  "inverted-face-filter",
  "boob-boost-effect",
  "16-bit-video-game-character",
  "3d-caricature",
  "y2k-style-ai",
];

describe("effect catalogue", () => {
  it("holds every one of the spec's effects, by id and in the spec's order, with imageType, price, href and flags", () => {
    const ids = EFFECTS.map((e) => e.id);
    expect(ids.filter((id) => SPEC_IDS.includes(id))).toEqual(SPEC_IDS);
    expect(new Set(ids).size).toBe(ids.length);
    for (const e of EFFECTS) {
      expect(e.imageType).toBe(`nano-banana-lora-${e.id}`);
      expect(e.credits).toBe(2);
      expect(e.href).toBe(`/nano-banana-lora/${e.id}`);
      expect(e.examples).toHaveLength(3);
      expect(getEffectByImageType(e.imageType)).toBe(e);
    }
    const spec = EFFECTS.filter((e) => SPEC_IDS.includes(e.id));
    const hot = spec.filter((e) => e.isHot).map((e) => e.id);
    const fresh = spec.filter((e) => e.isNew).map((e) => e.id);
    expect(hot).toEqual(["image-restoration", "watermark-remover", "gta-style-filter", "3d-finger"]);
    expect(fresh).toEqual([
      "boob-boost-effect",
      "16-bit-video-game-character",
      "3d-caricature",
      "y2k-style-ai",
    ]);
  });

  it("defaults outpainting to all four edges and validates them", () => {
    const o = getEffect("image-outpainting")!.options;
    expect(o.parse({})).toEqual({ edges: ["top", "bottom", "left", "right"], amount: 0.25 });
    expect(o.parse({ edges: ["left", "right"] })).toMatchObject({ edges: ["left", "right"] });
    expect(o.safeParse({ edges: [] }).success).toBe(false);
    expect(o.safeParse({ edges: ["left", "left"] }).success).toBe(false);
  });

  it("requires the watermark rights confirmation and the body-edit consent", () => {
    expect(getEffect("watermark-remover")!.options.safeParse({}).success).toBe(false);
    expect(getEffect("watermark-remover")!.options.safeParse({ rightsConfirmed: true }).success).toBe(true);
    expect(getEffect("boob-boost-effect")!.options.safeParse({ adultConsent: false }).success).toBe(false);
    expect(getEffect("boob-boost-effect")!.options.safeParse({ adultConsent: true }).success).toBe(true);
  });

  it("offers the mood prompt only where the copy does, and multi-image input where it needs it", () => {
    expect(EFFECTS.filter((e) => e.acceptsPrompt).map((e) => e.id)).toEqual([
      "hug-my-younger-self",
      "y2k-style-ai",
    ]);
    expect(getEffect("hug-my-younger-self")!.input).toMatchObject({ mode: "together", min: 2, max: 2 });
    expect(getEffect("baby-face-generator")!.input).toMatchObject({ mode: "together", min: 1, max: 2 });
    expect(getEffect("pixel-illustration")!.input).toEqual({ mode: "each" });
    expect(getEffect("pixel-illustration")!.options.safeParse({ surprise: 1 }).success).toBe(false);
  });

  it("gives the operator's renders (examples, sheet, benchmarks) valid options, consent included", () => {
    for (const effect of EFFECTS)
      expect(effect.options.safeParse(operatorOptions(effect)).success).toBe(true);
    expect(operatorOptions(getEffect("watermark-remover")!)).toMatchObject({ rightsConfirmed: true });
    expect(operatorOptions(getEffect("boob-boost-effect")!)).toMatchObject({ adultConsent: true });
    expect(operatorOptions(getEffect("image-outpainting")!)).toEqual(
      getEffect("image-outpainting")!.options.parse({}),
    );
  });
});
