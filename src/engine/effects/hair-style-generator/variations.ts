import type { RawImage } from "../../shared/image-io";
import type { HairRegion } from "../../shared/hair/hair-region";
import { barePlate } from "../../shared/hair/uncover";

/** What every cut (cuts.ts) works from: the tile, its person matte and hair region, and the background behind the hair. */
export type Rgb = readonly [number, number, number];

export interface Scene {
  src: RawImage;
  /** Person matte, 0..255. */
  matte: Buffer;
  hair: HairRegion;
  /** {@link hairLuma} of the source. */
  luma: number;
  seed: number;
}

const luma = (d: Buffer, i: number) => 0.299 * d[i * 3]! + 0.587 * d[i * 3 + 1]! + 0.114 * d[i * 3 + 2]!;

/** The hair's mean brightness, weighted by how surely each pixel is hair. */
export function hairLuma(src: RawImage, hair: HairRegion): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < hair.alpha.length; i++) {
    const a = hair.alpha[i]!;
    if (a > 0.05) {
      sum += luma(src.data, i) * a;
      n += a;
    }
  }
  return n > 0 ? sum / n : 60;
}

/**
 * What shows where old hair is taken away: the bare head (shared/hair/uncover.ts): the
 * background behind the person, the cheek behind a lock over the face, the neck, shoulders
 * and clothing behind hair hanging in front of them.
 */
export function backgroundPlate(scene: Scene): Buffer {
  return barePlate(scene.src, scene.matte, scene.hair);
}
