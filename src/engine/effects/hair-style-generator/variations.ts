import type { RawImage } from "../../shared/image-io";
import { fillFromBackground } from "../../shared/hair/fill-background";
import type { HairRegion } from "../../shared/hair/hair-region";

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

/** The background behind the person, estimated from the pixels around them. */
export function backgroundPlate(scene: Scene): Buffer {
  const { src, matte, hair } = scene;
  const known = new Uint8Array(src.width * src.height);
  for (let i = 0; i < known.length; i++) known[i] = matte[i]! < 60 && hair.alpha[i]! < 0.02 ? 1 : 0;
  return fillFromBackground(src.data, known, src.width, src.height);
}
