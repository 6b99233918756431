/**
 * Which fixture photos each effect is shown on, three tasks (each a list of one task's
 * inputs, declared in the effect's effect.ts): the example gallery (`npm run examples`) and
 * the contact sheet (`npm run engine:sheet`) use the same.
 */
import fs from "node:fs";
import path from "node:path";
import { getEffect, operatorOptions, type Effect } from "@/core/catalogue";
import type { LocalProvider } from "@/engine/providers/local/local-provider";

const PHOTOS = path.resolve(__dirname, "../tests/fixtures/photos");

/** Which photos an effect's examples start from: its module's `exampleInputs`. */
export function effectInputs(effectId: string): string[][] {
  const effect = getEffect(effectId);
  if (!effect) throw new Error(`unknown effect "${effectId}"`);
  return effect.exampleInputs;
}

/** Renders one task of operator inputs (fixture photo names) with the operator's options. */
export function renderFixtures(provider: LocalProvider, effect: Effect, names: string[], seed: number) {
  const images = names.map((n) => ({
    bytes: fs.readFileSync(path.join(PHOTOS, n)),
    mime: n.endsWith(".png") ? "image/png" : "image/jpeg",
  }));
  const output = provider.render({
    effectId: effect.id,
    route: "v1",
    images,
    options: operatorOptions(effect),
    prompt: "",
    seed,
  });
  return { images, output };
}
