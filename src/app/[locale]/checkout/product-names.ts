import { getTranslations } from "next-intl/server";
import { DEFAULT_PRICING, type Pricing } from "@/config/pricing";

/**
 * The names of the packs and plans for sale, in the request's language: the built-in ones
 * (Starter, Creator, Pro) translated; a name an operator set in PRICING_JSON as written
 * (only the operator knows what it should be called in each language).
 */
export async function productNames(pricing: Pricing): Promise<Record<string, string>> {
  const t = await getTranslations("checkout");
  const builtIn = [...DEFAULT_PRICING.packs, ...DEFAULT_PRICING.plans];
  return Object.fromEntries(
    [...pricing.packs, ...pricing.plans].map((p) => {
      const key = `productName_${p.id}` as "productName_starter";
      const translated = builtIn.some((d) => d.id === p.id && d.name === p.name) && t.has(key);
      return [p.id, translated ? t(key) : p.name];
    }),
  );
}
