import sharp from "sharp";
import {
  decodeRaw,
  encodePng,
  firstImage,
  transformRaw,
  type EffectOutput,
  type RawImage,
} from "../../shared/image-io";
import { upscaleCells } from "../../shared/pixel-grid";
import {
  cleanLoneCells,
  colourSpread,
  hexRgb,
  kMeansPalette,
  labOf,
  lightnessRange,
  MONOCHROME_SPREAD,
  monochromeRamp,
  nearestIndices,
  paint,
  paletteRgb,
} from "../../shared/pixel-art";
import { personMatte } from "../../vision/human";
import type { RenderRequest } from "@/core/ports/renderer";

/**
 * 16-Bit Video Game Character: the person as a 16-bit console sprite. The person is cut out
 * (the selfie matte, on the cell grid), drawn with at most 12 colours of their own (a
 * deliberate ramp for a b/w or toned photo), lone noisy cells cleaned, given the one-pixel dark
 * outline sprites have, and set on a plain banded game sky; then a crisp integer upscale.
 * A photo without a clear person is drawn whole in 16 colours of its own.
 */

/** Cells on the long side: 16-bit sprites are finer than 8-bit ones. */
export const GRID_LONG_SIDE = 96;
/** The spec's 16-colour palette. */
export const COLOURS = 16;
/** Colours of the person: the rest is the outline and the backdrop's bands. */
export const SPRITE_COLOURS = 12;
const TARGET_LONG_SIDE = 1056;

/** The outline: Endesga 32's near-black navy, darker than any colour a person is drawn with. */
export const OUTLINE = hexRgb(["181425"]);
/** The backdrop: a plain sky of three bands, deep at the top to pale at the horizon. */
export const SKY = hexRgb(["4f79d8", "7fa8f0", "b8d4fa"]);

/**
 * The person's cells from the selfie matte at the grid's size, or null when the photo has no
 * clear person: too little or too much of it (a close-up pet fills the frame), a matte mostly
 * undecided (a raccoon, a cup), or one touching the top edge along much of its width.
 */
export async function personCells(work: RawImage, cols: number, rows: number): Promise<Uint8Array | null> {
  const matte = await personMatte({ data: work.data as Buffer, width: work.width, height: work.height });
  const n = matte.width * matte.height;
  let person = 0;
  let undecided = 0;
  for (let i = 0; i < n; i++) {
    const a = matte.alpha[i]!;
    if (a >= 128) person++;
    if (a > 40 && a < 215) undecided++;
  }
  let top = 0;
  for (let x = 0; x < matte.width; x++) if (matte.alpha[x]! >= 128) top++;
  const share = person / n;
  if (share < 0.05 || share > 0.85 || undecided > person * 0.5 || top > matte.width * 0.3) return null;
  const small = await sharp(matte.alpha, { raw: { width: matte.width, height: matte.height, channels: 1 } })
    .resize(cols, rows, { fit: "fill", kernel: "mitchell" })
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
  const cells = new Uint8Array(cols * rows);
  for (let i = 0; i < cols * rows; i++) cells[i] = small[i]! >= 128 ? 1 : 0;
  return tidySilhouette(cells, cols, rows);
}

/**
 * The silhouette without specks: pieces smaller than 2 % of the largest are dropped, holes of
 * the same size filled (a sprite is one clean shape).
 */
function tidySilhouette(cells: Uint8Array, cols: number, rows: number): Uint8Array | null {
  const drop = (value: 0 | 1) => {
    const label = new Int32Array(cols * rows).fill(-1);
    const pieces: number[][] = [];
    for (let s = 0; s < cols * rows; s++) {
      if (cells[s] !== value || label[s]! >= 0) continue;
      const piece = [s];
      label[s] = pieces.length;
      for (let q = 0; q < piece.length; q++) {
        const i = piece[q]!;
        const x = i % cols;
        const y = (i - x) / cols;
        for (const [nx, ny] of [
          [x + 1, y],
          [x - 1, y],
          [x, y + 1],
          [x, y - 1],
        ] as const) {
          if (nx < 0 || ny < 0 || nx >= cols || ny >= rows) continue;
          const j = ny * cols + nx;
          if (cells[j] === value && label[j]! < 0) {
            label[j] = pieces.length;
            piece.push(j);
          }
        }
      }
      pieces.push(piece);
    }
    const largest = Math.max(0, ...pieces.map((p) => p.length));
    for (const p of pieces) if (p.length < largest * 0.02) for (const i of p) cells[i] = value ? 0 : 1;
  };
  drop(1);
  drop(0);
  return cells.some((v) => v) ? cells : null;
}

/** Lightness stretched over the given cells (1st..99th percentile, gain capped), chroma raised. */
function tone(lab: Float32Array, n: number, use: Uint8Array | undefined, chroma: number): void {
  const [lo, hi] = lightnessRange(lab, n, 0.01, 0.99, use);
  const gain = Math.min(2, Math.max(1, 0.78 / Math.max(1e-3, hi - lo)));
  for (let i = 0; i < n; i++) {
    lab[i * 3] = Math.max(0, Math.min(1, 0.12 + (lab[i * 3]! - lo) * gain));
    lab[i * 3 + 1] = lab[i * 3 + 1]! * chroma;
    lab[i * 3 + 2] = lab[i * 3 + 2]! * chroma;
  }
}

/** Palette indices and colours (sRGB) for the cells in `use`: a ramp if monochrome, else their own k colours. */
function drawCells(lab: Float32Array, n: number, k: number, use?: Uint8Array) {
  const { spread, tintA, tintB } = colourSpread(lab, n);
  const monochrome = spread < MONOCHROME_SPREAD;
  tone(lab, n, use, monochrome ? 1 : 1.3);
  if (monochrome) {
    const { match, rgb } = monochromeRamp(tintA, tintB);
    for (let i = 0; i < n; i++) lab[i * 3 + 1] = lab[i * 3 + 2] = 0;
    return { idx: nearestIndices(lab, n, match), match, rgb };
  }
  const match = kMeansPalette(lab, n, k, { use });
  const idx = nearestIndices(lab, n, match);
  // Cluster means are paler than the colours they stand for: painted a little richer.
  const paint = Float32Array.from(match);
  for (let j = 0; j < paint.length; j += 3) {
    paint[j + 1] = paint[j + 1]! * 1.25;
    paint[j + 2] = paint[j + 2]! * 1.25;
  }
  return { idx, match, rgb: paletteRgb(paint) };
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const work = await decodeRaw(firstImage(req), { channels: 3, flatten: true, maxSide: GRID_LONG_SIDE * 4 });
  const scale = GRID_LONG_SIDE / Math.max(work.width, work.height);
  const cols = Math.max(1, Math.round(work.width * scale));
  const rows = Math.max(1, Math.round(work.height * scale));
  const n = cols * rows;
  const grid = await transformRaw(work, (img) => img.resize(cols, rows, { fit: "fill", kernel: "mitchell" }));
  const lab = labOf(grid.data, n);
  const person = await personCells(work, cols, rows);

  if (!person) {
    // No clear person: the whole photo as a 16-bit scene in 16 colours of its own.
    const { idx, match, rgb } = drawCells(lab, n, COLOURS);
    const clean = cleanLoneCells(idx, cols, rows, match);
    return encodePng(upscaleCells(paint(clean, rgb), cols, rows, TARGET_LONG_SIDE));
  }

  // The sprite: the person's own colours, lone cells cleaned inside the silhouette only.
  const { idx, match, rgb } = drawCells(lab, n, SPRITE_COLOURS, person);
  const backdrop = person.map((v) => (v ? 0 : 1));
  const sprite = cleanLoneCells(idx, cols, rows, match, { ignore: backdrop });
  const k = rgb.length / 3;
  const colours = new Uint8Array((k + 1 + SKY.length / 3) * 3);
  colours.set(rgb, 0);
  colours.set(OUTLINE, k * 3);
  colours.set(SKY, (k + 1) * 3);

  const out = Uint8Array.from(sprite);
  for (let y = 0; y < rows; y++)
    for (let x = 0; x < cols; x++) {
      const i = y * cols + x;
      if (person[i]) continue;
      // One-cell outline round the silhouette (4-neighbours), the sky elsewhere.
      const touches =
        (x > 0 && person[i - 1]) ||
        (x < cols - 1 && person[i + 1]) ||
        (y > 0 && person[i - cols]) ||
        (y < rows - 1 && person[i + cols]);
      if (touches) out[i] = k;
      else {
        // Three bands with a one-row checker between them, as 16-bit skies were drawn.
        const t = (y / rows) * 3;
        const band = Math.min(2, Math.floor(t));
        const f = t - band;
        const next = Math.min(2, band + 1);
        const dither = f > 0.88 && band < 2 && (x + y) % 2 === 0;
        out[i] = k + 1 + (dither ? next : band);
      }
    }
  return encodePng(upscaleCells(paint(out, colours), cols, rows, TARGET_LONG_SIDE));
}
