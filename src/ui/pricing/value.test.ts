import { describe, expect, it } from "vitest";
import { EFFECT_CREDITS } from "@/core/catalogue-constants";
import { DEFAULT_PRICING } from "@/config/pricing";
import { bestValuePackId, imagesFor, perImageFormat, pricePerImage } from "./value";

const fmt = (value: number, currency: string, locale = "en-US") =>
  new Intl.NumberFormat(locale, perImageFormat(value, currency)).format(value);

describe("cost per image on the pricing page", () => {
  it("spreads the default packs' and plan's prices over the images their credits pay for", () => {
    const [starter, creator] = DEFAULT_PRICING.packs;
    const [pro] = DEFAULT_PRICING.plans;
    expect(imagesFor(starter!.credits, EFFECT_CREDITS)).toBe(20);
    expect(fmt(pricePerImage(starter!.priceCents, starter!.credits, EFFECT_CREDITS), "usd")).toBe("$0.25");
    expect(fmt(pricePerImage(creator!.priceCents, creator!.credits, EFFECT_CREDITS), "usd")).toBe("$0.15");
    expect(imagesFor(pro!.monthlyCredits, EFFECT_CREDITS)).toBe(150);
    expect(fmt(pricePerImage(pro!.priceCents, pro!.monthlyCredits, EFFECT_CREDITS), "usd")).toBe("$0.09");
  });

  it("follows the currency and locale, and never shows a price as zero", () => {
    expect(fmt(pricePerImage(1499, 200, 2), "eur", "de-DE")).toBe("0,15\u00a0€");
    expect(fmt(pricePerImage(50000, 100, 2), "jpy", "ja-JP")).toBe("￥10");
    // 1 cent for 1,000 images: 0.00001 dollars per image, not "$0.00".
    expect(fmt(pricePerImage(1, 2000, 2), "usd")).toBe("$0.00001");
  });

  it("marks the best-value pack only when it is clearly cheaper per image", () => {
    expect(bestValuePackId(DEFAULT_PRICING.packs, EFFECT_CREDITS)).toBe("creator");
    // Within 10% of each other: no mark.
    expect(
      bestValuePackId(
        [
          { id: "a", credits: 100, priceCents: 1000 },
          { id: "b", credits: 200, priceCents: 1900 },
        ],
        2,
      ),
    ).toBeNull();
    // One pack alone: nothing to compare.
    expect(bestValuePackId([{ id: "a", credits: 100, priceCents: 1000 }], 2)).toBeNull();
    // The cheapest per image wins whatever its place in the list.
    expect(
      bestValuePackId(
        [
          { id: "big", credits: 1000, priceCents: 4000 },
          { id: "small", credits: 20, priceCents: 400 },
          { id: "mid", credits: 100, priceCents: 1500 },
        ],
        2,
      ),
    ).toBe("big");
  });
});
