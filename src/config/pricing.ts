import { z } from "zod";
import { FREE_UPLOAD_CAP } from "@/core/plan-limits";
import { getEnv } from "./env";

/**
 * What can be bought. The spec shows no prices, so these defaults are ours; operators set
 * PRICING_JSON with the same shape. Prices are in the currency's minor unit (cents).
 */
const packSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9-]{1,40}$/),
    name: z.string().min(1),
    credits: z.number().int().positive(),
    priceCents: z.number().int().positive(),
  })
  .strict();

const planSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9-]{1,40}$/),
    name: z.string().min(1),
    /** Credits granted at each paid month (first month included). */
    monthlyCredits: z.number().int().positive(),
    priceCents: z.number().int().positive(),
    /** Images per submit (never below the free cap); defaults to SUBSCRIBER_UPLOAD_CAP. */
    uploadCap: z.number().int().min(FREE_UPLOAD_CAP).max(50).optional(),
  })
  .strict();

export const pricingSchema = z
  .object({
    currency: z.string().regex(/^[a-z]{3}$/),
    packs: z.array(packSchema).max(10),
    plans: z.array(planSchema).max(5),
  })
  .strict()
  .refine(
    (p) => new Set([...p.packs, ...p.plans].map((x) => x.id)).size === p.packs.length + p.plans.length,
    {
      message: "every pack and plan needs its own id",
    },
  );

export type Pricing = z.infer<typeof pricingSchema>;
export type Pack = z.infer<typeof packSchema>;
export type Plan = z.infer<typeof planSchema>;

export const DEFAULT_PRICING: Pricing = {
  currency: "usd",
  packs: [
    { id: "starter", name: "Starter", credits: 40, priceCents: 499 },
    { id: "creator", name: "Creator", credits: 200, priceCents: 1499 },
  ],
  plans: [{ id: "pro", name: "Pro", monthlyCredits: 300, priceCents: 1299 }],
};

/** Parses PRICING_JSON (or returns the defaults); throws a message naming the variable. */
export function parsePricing(json: string | undefined): Pricing {
  if (!json) return DEFAULT_PRICING;
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error("PRICING_JSON: not valid JSON");
  }
  const parsed = pricingSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `PRICING_JSON: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  return parsed.data;
}

let processPricing: Pricing | undefined;

/** This process's prices (PRICING_JSON of the validated env, or the defaults), parsed once. */
export function getPricing(): Pricing {
  return (processPricing ??= parsePricing(getEnv().PRICING_JSON));
}
