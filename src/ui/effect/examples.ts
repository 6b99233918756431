import type { Effect, ExamplePair } from "@/core/catalogue";
import rendered from "@/generated/examples.json";

/**
 * Which example pairs exist and which engine made them. `npm run examples` renders them
 * into public/examples/<id>/ and records here how many it wrote and with what engine; an
 * effect without any has none and the gallery shows a marked placeholder.
 */
const manifest = rendered as Record<string, { pairs: number; engine: string; model: string }>;

export function realExamples(effect: Pick<Effect, "id" | "examples">): ExamplePair[] {
  const entry = manifest[effect.id];
  if (!entry) return [];
  return effect.examples.slice(0, entry.pairs).map((pair) => ({ ...pair, engine: entry.engine }));
}
