/**
 * Which fixture photos each effect is shown on, three tasks (each a list of one task's
 * inputs): the example gallery (`npm run examples`) and the contact sheet
 * (`npm run engine:sheet`) use the same.
 */
import fs from "node:fs";
import path from "node:path";
import { operatorOptions, type Effect } from "@/core/catalogue";
import { LOCAL_INPUT_CHECKS } from "@/engine/effects/registry";
import type { LocalProvider } from "@/engine/providers/local/local-provider";

const PHOTOS = path.resolve(__dirname, "../tests/fixtures/photos");

const portraits = [["portrait-female-1.jpg"], ["portrait-male-1.jpg"], ["portrait-male-2.jpg"]];
const general = [["portrait-female-1.jpg"], ["pet-1-cat.png"], ["landscape-1-meadow-cc0.jpg"]];

/** Which photos each effect's examples start from (arrays: one task's inputs). */
const INPUTS: Record<string, string[][]> = {
  "image-restoration": [
    ["old-bw-1-migrant-mother-1936.jpg"],
    ["couple-1-daguerreotype-1850s.jpg"],
    ["old-damaged-2-daguerreotype-1850s.jpg"],
  ],
  "watermark-remover": [
    ["watermark-1-landscape-tiled.jpg"],
    ["watermark-2-portrait-centered.jpg"],
    ["watermark-3-logo-corner.jpg"],
  ],
  "baby-face-generator": [
    ["portrait-female-1.jpg", "portrait-male-1.jpg"],
    ["portrait-female-3-nasa.png", "portrait-male-2.jpg"],
    ["couple-1-daguerreotype-1850s.jpg"],
  ],
  "hug-my-younger-self": [
    ["portrait-female-1.jpg", "child-2-girl-1860s-crop.jpg"],
    ["portrait-male-1.jpg", "child-2-girl-1860s-crop.jpg"],
    ["portrait-female-3-nasa.png", "child-2-girl-1860s-crop.jpg"],
  ],
  // The fixtures' only adult photo that shows the shoulders and chest (the others are refused).
  "boob-boost-effect": [["portrait-female-3-nasa.png"]],
  "image-outpainting": [["landscape-1-meadow-cc0.jpg"], ["object-coffee.png"], ["scene-rocket-launch.jpg"]],
  "coloring-page": [["pet-1-cat.png"], ["object-coffee.png"], ["portrait-female-1.jpg"]],
};
/** Effects shown on portraits besides the people effects (which need a face). */
const PORTRAIT_LOOKS = [
  "artistic-portrait",
  "inverted-face-filter",
  "y2k-style-ai",
  "16-bit-video-game-character",
];

export function effectInputs(effectId: string): string[][] {
  return (
    INPUTS[effectId] ??
    (effectId in LOCAL_INPUT_CHECKS || PORTRAIT_LOOKS.includes(effectId) ? portraits : general)
  );
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
