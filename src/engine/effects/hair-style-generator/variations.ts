import type { RawImage } from "../../shared/image-io";
import { fillFromBackground } from "../../shared/hair/fill-background";
import type { HairRegion } from "../../shared/hair/hair-region";
import { dilate } from "../../shared/hair/skin-guard";
import { inpaintRgb } from "../../shared/opencv";
import { nearHair } from "./cuts";

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
 * What shows where old hair is taken away: the background behind the person, estimated from
 * the pixels around them; under the jaw, where a lock hung in front of the neck, the neck
 * (inpainted, OpenCV Telea, from the skin and background around it) rather than the lake
 * or wall behind.
 */
export async function backgroundPlate(scene: Scene): Promise<Buffer> {
  const { src, matte, hair } = scene;
  const { width, height } = src;
  const known = new Uint8Array(width * height);
  // Only clear background: off the person's soft rim and away from the hair.
  const near = nearHair(hair, width, height);
  for (let i = 0; i < known.length; i++)
    known[i] = matte[i]! < 30 && !near[i] && hair.alpha[i]! < 0.02 ? 1 : 0;
  const plate = fillFromBackground(src.data, known, width, height);
  const { cx, chin, fw, fh } = hair.head;
  const neck = new Uint8Array(width * height);
  let any = false;
  for (let y = Math.max(0, Math.round(chin - fh * 0.15)); y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const half = fw * (0.3 + 0.12 * Math.min(1, Math.max(0, (y - chin) / (fh * 0.6))));
      if (Math.abs(x - cx) < half && hair.alpha[i]! > 0.02 && !hair.guard[i]) {
        neck[i] = 1;
        any = true;
      }
    }
  if (!any) return plate;
  const mask = dilate(neck, width, height, Math.round(fw * 0.02) + 2);
  for (let i = 0; i < mask.length; i++) if (hair.guard[i]) mask[i] = 0;
  const skin = await inpaintRgb(src.data, width, height, mask, Math.round(fw * 0.05) + 3);
  for (let i = 0; i < mask.length; i++) if (mask[i]) skin.copy(plate, i * 3, i * 3, i * 3 + 3);
  return plate;
}
