/**
 * The frozen scoring set (docs/SCORES.md): the photos every effect is scored on, before and
 * after any change to an effect. Do not edit this list to raise a score; add a photo only
 * with a new "before" column scored on the unchanged engine.
 * Files are in tests/fixtures/photos (credited in tests/fixtures/SOURCES.md); the ones made
 * for this set come from scripts/make-scoring-photos.ts.
 */

/** Every photo of the set, in column order. Every one-photo effect is rendered on each. */
export const SCORING_PHOTOS = [
  // People: adults (skin tones, glasses, beard, an older woman, a full-figure b/w person).
  "portrait-female-1.jpg",
  "portrait-male-1.jpg", // glasses and beard
  "portrait-male-2.jpg",
  "portrait-female-3-nasa.png",
  "portrait-female-4-hopper-navy.jpg", // older woman, glasses, cap, uniform
  "person-1-cameraman-bw.jpg", // b/w, face in three-quarter view, whole figure
  // Children, couples and groups (old photographs).
  "child-1-three-children-1860s.jpg",
  "child-2-girl-1860s-crop.jpg",
  "couple-1-daguerreotype-1850s.jpg",
  "old-damaged-2-daguerreotype-1850s.jpg", // five women, tarnished
  // Old, toned and torn photos.
  "old-bw-1-migrant-mother-1936.jpg",
  "old-toned-1-sepia-migrant-mother.jpg",
  "old-torn-1-sepia-three-children.jpg",
  // Pets, an object, a landscape.
  "pet-1-cat.png",
  "pet-2-raccoon.jpg",
  "object-coffee.png",
  "landscape-1-meadow-cc0.jpg",
  // Watermarks the watermark remover was not tuned on (and one it was: the logo).
  "watermark-3-logo-corner.jpg",
  "watermark-5-serif-red-coffee.jpg",
  "watermark-6-mono-proof-portrait.jpg",
  "watermark-7-logo-blue-landscape.jpg",
  "watermark-8-handle-raccoon.jpg",
] as const;

/** Two-photo effects: the tasks scored (each a list of one task's inputs, in upload order). */
export const SCORING_PAIRS: Record<string, readonly (readonly string[])[]> = {
  // 1-2 photos: two parents, or one couple photo.
  "baby-face-generator": [
    ["portrait-female-1.jpg", "portrait-male-1.jpg"],
    ["portrait-female-3-nasa.png", "portrait-male-2.jpg"],
    ["portrait-female-4-hopper-navy.jpg", "portrait-male-1.jpg"],
    ["portrait-female-1.jpg", "person-1-cameraman-bw.jpg"],
    ["couple-1-daguerreotype-1850s.jpg"],
    ["old-damaged-2-daguerreotype-1850s.jpg"], // five faces: not a couple photo
    ["portrait-female-1.jpg", "pet-1-cat.png"], // no face in the second photo
  ],
  // Exactly 2: the adult now, then the childhood photo.
  "hug-my-younger-self": [
    ["portrait-female-1.jpg", "child-2-girl-1860s-crop.jpg"],
    ["portrait-male-1.jpg", "child-2-girl-1860s-crop.jpg"],
    ["portrait-male-2.jpg", "child-2-girl-1860s-crop.jpg"],
    ["portrait-female-3-nasa.png", "child-2-girl-1860s-crop.jpg"],
    ["portrait-female-4-hopper-navy.jpg", "old-torn-1-sepia-three-children.jpg"],
    ["person-1-cameraman-bw.jpg", "child-1-three-children-1860s.jpg"],
    ["portrait-female-1.jpg", "pet-1-cat.png"], // no face in the childhood photo
  ],
};

/** The tasks an effect is scored on: its pairs, else one task per photo of the set. */
export function scoringTasks(effectId: string): string[][] {
  return (SCORING_PAIRS[effectId] ?? SCORING_PHOTOS.map((p) => [p])).map((t) => [...t]);
}

/** A task's column label: the photo name(s) without extensions. */
export const taskLabel = (names: readonly string[]) =>
  names.map((n) => n.replace(/\.(jpe?g|png)$/, "")).join(" + ");
