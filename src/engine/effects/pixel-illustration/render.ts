import type { RenderRequest } from "@/core/ports/renderer";
import { decodeRaw, encodePng, firstImage, transformRaw, type EffectOutput } from "../../shared/image-io";
import { upscaleCells } from "../../shared/pixel-grid";
import {
  cleanLoneCells,
  colourSpread,
  labOf,
  lightnessRange,
  MONOCHROME_SPREAD,
  monochromeRamp,
  nearestIndices,
  paint,
} from "../../shared/pixel-art";

/**
 * Pixel Illustration: the photo as 8-bit pixel art. A coarse even grid of cells, each cell one
 * colour of a small palette chosen for this photo (a deliberate hue-shifted ramp for a b/w or
 * toned photo), lone noisy cells cleaned, blown up with hard nearest-neighbour edges.
 */

/** Cells along the image's long side: coarse enough to read as pixel art, fine enough for faces. */
export const GRID_LONG_SIDE = 64;
/** Target long side of the output in pixels (each cell becomes a k x k block). */
const TARGET_LONG_SIDE = 1024;
/** Colours of a colour photo's palette: an 8-bit look, enough for skin, hair, sky and foliage. */
export const COLOURS = 20;
/** Steps of the ramp a monochrome photo is drawn with. */
export const RAMP_STEPS = 7;

/** Grid size: long side GRID_LONG_SIDE cells, short side in proportion (at least one). */
export function gridSize(width: number, height: number): { cols: number; rows: number } {
  const long = Math.max(width, height);
  const scale = GRID_LONG_SIDE / long;
  const cols = Math.max(1, Math.round(width * scale));
  const rows = Math.max(1, Math.round(height * scale));
  return { cols, rows };
}

/**
 * The retro colours every cell is painted with: DawnBringer's 32 (DB32) and Endesga 32, two
 * classic pixel-art palettes (63 distinct colours). Between them they have hue-shifted ramps for
 * skin, hair, foliage, sky, wood and a cool grey scale; a photo takes the few it needs.
 */
export const PALETTE: readonly (readonly [number, number, number])[] = [
  // DB32
  ..."000000 222034 45283c 663931 8f563b df7126 d9a066 eec39a fbf236 99e550 6abe30 37946e 4b692f 524b24 323c39 3f3f74 306082 5b6ee1 639bff 5fcde4 cbdbfc ffffff 9badb7 847e87 696a6a 595652 76428a ac3232 d95763 d77bba 8f974a 8a6f30".split(
    " ",
  ),
  // Endesga 32 (its white is DB32's)
  ..."be4a2f d77643 ead4aa e4a672 b86f50 733e39 3e2731 a22633 e43b44 f77622 feae34 fee761 63c74d 3e8948 265c42 193c3e 124e89 0099db 2ce8f5 c0cbdc 8b9bb4 5a6988 3a4466 262b44 181425 ff0044 68386c b55088 f6757a e8b796 c28569".split(
    " ",
  ),
].map(
  (hex) =>
    [parseInt(hex.slice(0, 2), 16), parseInt(hex.slice(2, 4), 16), parseInt(hex.slice(4, 6), 16)] as const,
);
const PALETTE_LAB = labOf(Uint8Array.from(PALETTE.flat()), PALETTE.length);

/**
 * The cells' lightness stretched to the full range (1st..99th percentile to 0.1..0.95, gain
 * capped), and for a monochrome photo partly equalised, so a faded print uses every step of
 * its ramp instead of three greys. Chroma is raised a little: pixel art is punchier than a photo.
 */
function tone(lab: Float32Array, n: number, monochrome: boolean): void {
  const [lo, hi] = lightnessRange(lab, n, 0.01, 0.99);
  const gain = Math.min(2.2, Math.max(1, 0.85 / Math.max(1e-3, hi - lo)));
  const ranks = monochrome ? lightnessRanks(lab, n) : null;
  for (let i = 0; i < n; i++) {
    const stretched = Math.max(0, Math.min(1, 0.1 + (lab[i * 3]! - lo) * gain));
    lab[i * 3] = ranks ? 0.7 * stretched + 0.3 * (0.08 + ranks[i]! * 0.88) : stretched;
    lab[i * 3 + 1] = lab[i * 3 + 1]! * 1.25;
    lab[i * 3 + 2] = lab[i * 3 + 2]! * 1.25;
  }
}

/** Each cell's lightness rank, 0..1. */
function lightnessRanks(lab: Float32Array, n: number): Float32Array {
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => lab[a * 3]! - lab[b * 3]! || a - b);
  const ranks = new Float32Array(n);
  order.forEach((cell, r) => (ranks[cell] = n > 1 ? r / (n - 1) : 0.5));
  return ranks;
}

/** Palette distance: hue and chroma count more than in plain OKLab, so a shadowed cheek stays a skin tone instead of turning grey. */
const CHROMA_WEIGHT = 1.5;

/** For each cell, the nearest retro colour (hue-weighted). */
function nearestRetro(lab: Float32Array, n: number, allowed: boolean[]): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    let best = 0;
    let bestD = Infinity;
    for (let p = 0; p < PALETTE.length; p++) {
      if (!allowed[p]) continue;
      const dL = lab[i * 3]! - PALETTE_LAB[p * 3]!;
      const dA = (lab[i * 3 + 1]! - PALETTE_LAB[p * 3 + 1]!) * CHROMA_WEIGHT;
      const dB = (lab[i * 3 + 2]! - PALETTE_LAB[p * 3 + 2]!) * CHROMA_WEIGHT;
      const d = dL * dL + dA * dA + dB * dB;
      if (d < bestD) {
        bestD = d;
        best = p;
      }
    }
    out[i] = best;
  }
  return out;
}

/**
 * The retro colours this photo uses, at most {@link COLOURS}: every cell's nearest colour,
 * then the rarest colours given up (their cells go to the nearest colour kept) until the
 * palette is small and every colour kept covers a visible area.
 */
function retroCells(lab: Float32Array, n: number): Uint8Array {
  const allowed = PALETTE.map(() => true);
  let idx = nearestRetro(lab, n, allowed);
  const minCells = Math.max(2, Math.round(n * 0.002));
  for (;;) {
    const counts = new Array<number>(PALETTE.length).fill(0);
    for (const p of idx) counts[p]!++;
    for (let p = 0; p < PALETTE.length; p++) if (!counts[p]) allowed[p] = false;
    const used = allowed.filter(Boolean).length;
    let rarest = -1;
    for (let p = 0; p < PALETTE.length; p++)
      if (allowed[p] && (rarest < 0 || counts[p]! < counts[rarest]!)) rarest = p;
    if (used <= 1 || (used <= COLOURS && counts[rarest]! >= minCells)) return idx;
    allowed[rarest] = false;
    idx = nearestRetro(lab, n, allowed);
  }
}

/**
 * The cells as palette indices, and the palette (sRGB): a colour photo's own clusters
 * (k-means in OKLab) painted with retro colours; a b/w or toned photo drawn with a
 * deliberate ramp (cool for b/w, warm for sepia) instead of muddy near-greys.
 */
export function pixelate(
  lab: Float32Array,
  n: number,
  cols: number,
  rows: number,
): { idx: Uint8Array; rgb: Uint8Array; monochrome: boolean } {
  const { spread, tintA, tintB } = colourSpread(lab, n);
  const monochrome = spread < MONOCHROME_SPREAD;
  tone(lab, n, monochrome);
  let match: Float32Array;
  let rgb: Uint8Array;
  if (monochrome) {
    ({ match, rgb } = monochromeRamp(tintA, tintB));
    // The toned range (0.1..0.95) laid over the ramp's own, so every step is reachable.
    const steps = match.length / 3;
    const [first, last] = [match[0]!, match[(steps - 1) * 3]!];
    for (let i = 0; i < n; i++) {
      lab[i * 3] = first + ((lab[i * 3]! - 0.1) / 0.85) * (last - first);
      lab[i * 3 + 1] = lab[i * 3 + 2] = 0;
    }
  } else {
    rgb = Uint8Array.from(PALETTE.flat());
    match = PALETTE_LAB;
    const idx = cleanLoneCells(retroCells(lab, n), cols, rows, match);
    return { idx, rgb, monochrome };
  }
  const idx = cleanLoneCells(nearestIndices(lab, n, match), cols, rows, match);
  return { idx, rgb, monochrome };
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const bytes = firstImage(req);
  // A small upright working copy first (its size gives the grid), then one shrink straight
  // to the grid: the averaging kernel gives each cell its area's mean colour.
  const work = await decodeRaw(bytes, { channels: 3, flatten: true, maxSide: GRID_LONG_SIDE * 4 });
  const { cols, rows } = gridSize(work.width, work.height);
  const cells = await transformRaw(work, (img) =>
    img.resize(cols, rows, { fit: "fill", kernel: "mitchell" }),
  );
  const n = cols * rows;
  const { idx, rgb } = pixelate(labOf(cells.data, n), n, cols, rows);
  return encodePng(upscaleCells(paint(idx, rgb), cols, rows, TARGET_LONG_SIDE));
}
