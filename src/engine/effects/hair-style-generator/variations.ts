import type { RawImage } from "../../shared/image-io";
import { fillFromBackground } from "../../shared/hair/fill-background";
import type { HairRegion } from "../../shared/hair/hair-region";
import { hash2, valueNoise } from "../../shared/noise";

/**
 * The hairstyle variations (recolour, chin cut, long, waves): each one paints inside (or next to) the hair region and never
 * inside the face oval, so the face stays the same from tile to tile.
 */

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

const smoothstep = (a: number, b: number, x: number) => {
  const t = Math.min(1, Math.max(0, (x - a) / (b - a)));
  return t * t * (3 - 2 * t);
};
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
 * Paints `target` into `out` where `alpha` says, keeping the hair's own light and shade:
 * each pixel's brightness relative to the hair's mean scales the new colour (softened, so
 * dark hair turning platinum does not turn its noise into glitter). `shade` adds texture.
 */
function paint(
  scene: Scene,
  out: Buffer,
  alpha: Float32Array,
  target: Rgb,
  shade: (i: number) => number = () => 1,
): void {
  const m = scene.luma;
  const d = scene.src.data;
  for (let i = 0; i < alpha.length; i++) {
    const a = alpha[i]!;
    if (a <= 0.003) continue;
    const s = Math.pow((luma(d, i) + 30) / (m + 30), 0.8) * shade(i);
    for (let c = 0; c < 3; c++) {
      const v = Math.min(255, target[c]! * s);
      out[i * 3 + c] = Math.round(out[i * 3 + c]! * (1 - a) + v * a);
    }
  }
}

/** A new colour, same cut. */
export function recolour(scene: Scene, target: Rgb): Buffer {
  const out = Buffer.from(scene.src.data);
  paint(scene, out, scene.hair.alpha, target);
  return out;
}

/** The background behind the person, estimated from the pixels around them. */
export function backgroundPlate(scene: Scene): Buffer {
  const { src, matte, hair } = scene;
  const known = new Uint8Array(src.width * src.height);
  for (let i = 0; i < known.length; i++) known[i] = matte[i]! < 60 && hair.alpha[i]! < 0.02 ? 1 : 0;
  return fillFromBackground(src.data, known, src.width, src.height);
}

/**
 * A chin-length cut: hair below a slightly ragged line between the nose and the mouth is
 * replaced by the background behind it; the rest takes `target`.
 */
export function shorten(scene: Scene, target: Rgb, plate: Buffer): Buffer {
  const { src, hair, seed } = scene;
  const { width, height } = src;
  const { eyes, chin, fw } = hair.head;
  const line = eyes + (chin - eyes) * 0.45;
  const cut = new Float32Array(width * height);
  const kept = new Float32Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const a = hair.alpha[i]!;
      if (a <= 0) continue;
      const ragged = line + (valueNoise(x / (fw * 0.04), 0.5, seed) - 0.5) * fw * 0.06;
      const below = smoothstep(ragged - 3, ragged + 3, y);
      // Removed hair takes a little more than its own soft edge, or a coloured halo stays.
      cut[i] = Math.min(1, a * 1.6) * below;
      kept[i] = a * (1 - below);
    }
  const out = Buffer.from(src.data);
  for (let i = 0; i < cut.length; i++) {
    const a = cut[i]!;
    if (a > 0)
      for (let c = 0; c < 3; c++)
        out[i * 3 + c] = Math.round(out[i * 3 + c]! * (1 - a) + plate[i * 3 + c]! * a);
  }
  paint(scene, out, kept, target);
  return out;
}

/**
 * Long hair: two curtains of strands from the temples down past the shoulders, beside the
 * face and neck, in `target`, over a recolour of the hair already there.
 */
export function lengthen(scene: Scene, target: Rgb): Buffer {
  const { src, hair, seed } = scene;
  const { width, height } = src;
  const { cx, brows, eyes, chin, fw, fh } = hair.head;
  const out = recolour(scene, target);
  const feather = Math.max(1.5, fw * 0.015);
  const y0 = Math.max(0, Math.floor(brows));
  const y1 = Math.min(height - 1, Math.ceil(chin + fh * 1.15));
  const x0 = Math.max(0, Math.floor(cx - fw * 1.0));
  const x1 = Math.min(width - 1, Math.ceil(cx + fw * 1.0));
  for (let y = y0; y <= y1; y++) {
    const inner = Math.max(hair.half[y]! + fw * 0.01, fw * 0.3);
    const fadeIn = smoothstep(brows, eyes, y);
    for (let x = x0; x <= x1; x++) {
      const dx = Math.abs(x - cx);
      const side = x < cx ? 0 : 1;
      // Ragged tips: each strand group ends at its own length.
      const end = chin + fh * (0.95 + 0.18 * (valueNoise(dx / (fw * 0.05), side * 7, seed) - 0.5));
      const t = Math.min(1, Math.max(0, (y - brows) / (end - brows)));
      const outer = fw * (0.6 + 0.3 * Math.pow(t, 0.8));
      const a =
        fadeIn *
        smoothstep(inner - feather, inner + feather, dx) *
        (1 - smoothstep(outer - feather * 2, outer + feather * 2, dx)) *
        (1 - smoothstep(end - fh * 0.08, end, y));
      if (a <= 0.003) continue;
      // Strands: noise fine across, long down, swaying a little with height.
      const u = dx + Math.sin(y / (fh * 0.12) + side * 2) * fw * 0.02;
      const streak =
        0.6 * valueNoise(u / (fw * 0.008), y / (fh * 0.3), seed + side) +
        0.4 * valueNoise(u / (fw * 0.03), y / (fh * 0.6), seed + 11 + side);
      // Shadow next to the face and neck, light on the outer strands.
      const edge = Math.min(1, (dx - inner) / (fw * 0.15));
      const s = (0.55 + 0.7 * streak) * (0.7 + 0.3 * edge);
      const i = y * width + x;
      for (let c = 0; c < 3; c++) {
        const v = Math.min(255, target[c]! * s);
        out[i * 3 + c] = Math.round(out[i * 3 + c]! * (1 - a) + v * a);
      }
    }
  }
  return out;
}

/**
 * Waves: the recoloured hair resampled along a sideways sine that drifts with height (its
 * outline goes wavy too), with light on each crest and shade in each trough.
 */
export function wave(scene: Scene, target: Rgb): Buffer {
  const { src, hair, seed } = scene;
  const { width, height } = src;
  const { fw, fh } = hair.head;
  const coloured = recolour(scene, target);
  const out = Buffer.from(src.data);
  const amp = fw * 0.035;
  const period = fh * 0.16;
  const phase = hash2(seed, 3, seed) * Math.PI * 2;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      // Crests lean with the distance from the parting, as waves in long hair do.
      const t = ((y + Math.abs(x - hair.head.cx) * 0.35) / period) * Math.PI * 2 + phase;
      const sx = Math.min(width - 1, Math.max(0, Math.round(x + amp * Math.sin(t))));
      const j = y * width + sx;
      const a = hair.alpha[j]!;
      if (a <= 0.003) continue;
      const i = y * width + x;
      if (hair.oval[i] && !hair.oval[j]) continue; // never drag hair over the face
      const light = 0.82 + 0.3 * (0.5 + 0.5 * Math.cos(t));
      for (let c = 0; c < 3; c++) {
        const v = Math.min(255, coloured[j * 3 + c]! * light);
        out[i * 3 + c] = Math.round(out[i * 3 + c]! * (1 - a) + v * a);
      }
    }
  return out;
}
