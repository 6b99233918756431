/**
 * What a pack or plan comes to per image: its price spread over the images its credits pay
 * for (every image costs EFFECT_CREDITS). Prices are in the currency's minor unit, as in
 * src/config/pricing.ts; the pricing page shows them divided by 100.
 */

/** A pack's best-value mark needs it to be at least this much cheaper per image than every other pack. */
export const BEST_VALUE_MARGIN = 0.1;

/** Images the credits pay for (whole images only). */
export function imagesFor(credits: number, effectCredits: number): number {
  return Math.floor(credits / effectCredits);
}

/** The price of one image, in major units: price / (credits / effectCredits). */
export function pricePerImage(priceCents: number, credits: number, effectCredits: number): number {
  return priceCents / 100 / (credits / effectCredits);
}

/**
 * Currency format options for a per-image price: the currency's usual decimals, or two
 * significant digits when those would round the price to nothing (0.004 is not "$0.00").
 */
export function perImageFormat(
  value: number,
  currency: string,
): { style: "currency"; currency: string; maximumSignificantDigits?: number } {
  const base = { style: "currency" as const, currency };
  const digits = new Intl.NumberFormat("en", base).resolvedOptions().maximumFractionDigits ?? 2;
  return value > 0 && value < 0.5 * 10 ** -digits ? { ...base, maximumSignificantDigits: 2 } : base;
}

/**
 * The pack to mark as the best value: the cheapest per image, and only when it is clearly
 * cheaper (by BEST_VALUE_MARGIN) than each other pack. One pack alone, or packs within the
 * margin of each other, get no mark.
 */
export function bestValuePackId(
  packs: ReadonlyArray<{ id: string; credits: number; priceCents: number }>,
  effectCredits: number,
): string | null {
  if (packs.length < 2) return null;
  const ranked = packs
    .map((p) => ({ id: p.id, cost: pricePerImage(p.priceCents, p.credits, effectCredits) }))
    .sort((a, b) => a.cost - b.cost);
  const [best, next] = ranked;
  return best!.cost <= next!.cost * (1 - BEST_VALUE_MARGIN) ? best!.id : null;
}
