import type { Effect, ExamplePair } from "@/core/catalogue";
import rendered from "@/generated/examples.json";

/**
 * Which example pairs exist. `npm run examples` renders them with the local engine into
 * public/examples/<id>/ and records here how many it wrote; an effect the engine cannot
 * render yet has none and the gallery shows a marked placeholder.
 */
const counts = rendered as Record<string, number>;

export function realExamples(effect: Pick<Effect, "id" | "examples">): ExamplePair[] {
  return effect.examples.slice(0, counts[effect.id] ?? 0);
}
