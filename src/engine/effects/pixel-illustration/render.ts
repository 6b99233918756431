import type { RenderRequest } from "@/core/ports/renderer";
import sharp, { type Sharp } from "sharp";
import {
  decodeRaw,
  encodePng,
  firstImage,
  transformRaw,
  type EffectOutput,
  type RawImage,
} from "../../shared/image-io";
import { upscaleCells } from "../../shared/pixel-grid";
import { cleanLoneCells, labOf, lightnessRange, oklab, oklabToRgb } from "../../shared/pixel-art";
import { PRINT_L, PRINT_SKIN_HUE, PRINT_STEPS, printRampColours, printTone } from "../../shared/print-ramp";
import { detectFaces, personMatte, type Face } from "../../vision/human";
import { drawFaces, faceWidth, limitColours } from "../../shared/pixel-face";

/**
 * Pixel Illustration: the photo as 8-bit pixel art. A coarse even grid of cells, each cell
 * one colour of a fixed 32-colour retro palette, blown up with hard nearest-neighbour edges.
 * A photo with faces gets a grid fine enough for its largest face, every face drawn as a pixel
 * artist would (a skin ramp of its own colour, features placed from the face mesh: shared/pixel-face.ts)
 * and a dark selective outline around the people; still at most 32 colours.
 */

/** Cells along the image's long side: coarse enough to read as pixel art, fine enough for faces. */
export const GRID_LONG_SIDE = 64;
/** Cells the largest face should span (cheek to cheek), so its features have room... */
export const FACE_CELLS = 26;
/** ...within this many cells on the long side (still chunky: an 8-bit screen is 256 wide). */
export const FACE_GRID_MAX = 112;
/** Colours in the picture at most (the palette's, a face's ramp and features included). */
export const MAX_COLOURS = 32;
/** Faces the detector is less sure of are left to the palette (a blurred shape in a background). */
const MIN_FACE_SCORE = 0.85;
/** Long side of the copy faces are found on (the mesh needs the detail). */
const FACE_WORK_SIDE = 768;
/** Target long side of the output in pixels (each cell becomes a k x k block). */
const TARGET_LONG_SIDE = 1024;

/**
 * DawnBringer's 32-colour palette (DB32), a classic pixel-art palette: it has ramps for skin,
 * foliage, sky and a usable grey scale, which a photo needs more than a console palette does.
 */
export const PALETTE: readonly (readonly [number, number, number])[] = [
  "000000",
  "222034",
  "45283c",
  "663931",
  "8f563b",
  "df7126",
  "d9a066",
  "eec39a",
  "fbf236",
  "99e550",
  "6abe30",
  "37946e",
  "4b692f",
  "524b24",
  "323c39",
  "3f3f74",
  "306082",
  "5b6ee1",
  "639bff",
  "5fcde4",
  "cbdbfc",
  "ffffff",
  "9badb7",
  "847e87",
  "696a6a",
  "595652",
  "76428a",
  "ac3232",
  "d95763",
  "d77bba",
  "8f974a",
  "8a6f30",
].map(
  (hex) =>
    [parseInt(hex.slice(0, 2), 16), parseInt(hex.slice(2, 4), 16), parseInt(hex.slice(4, 6), 16)] as const,
);

const PALETTE_LAB = PALETTE.map(([r, g, b]) => oklab(r, g, b));

/** The palette in OKLab as one array (k x 3), as `cleanLoneCells` takes it. */
const PALETTE_LAB_CELLS = Float32Array.from(PALETTE_LAB.flat());

/** A photo whose median lightness (OKLab) is under this is a dark one (backlit grass, a dusk)... */
const DARK_MEDIAN_L = 0.45;
/** ...and is lifted so that its median is about this light. */
const LIFTED_MEDIAN_L = 0.47;

/**
 * A dark photo's shadows lifted (a power curve on every channel, in place): the palette's dark
 * end is navy and near-black, so dark green grass or a dusk street came out as one navy mass;
 * lifted, they reach the palette's greens and browns. Photos not dark are left as they are.
 */
function liftShadows(img: RawImage): void {
  const n = img.width * img.height;
  const L = labOf(img.data as Buffer, n);
  const ls = new Float32Array(n);
  for (let i = 0; i < n; i++) ls[i] = L[i * 3]!;
  ls.sort();
  const median = ls[Math.floor((n - 1) / 2)]!;
  if (median >= DARK_MEDIAN_L) return;
  const power = Math.log(LIFTED_MEDIAN_L) / Math.log(Math.max(0.2, median));
  const lut = Uint8Array.from({ length: 256 }, (_, c) => Math.round(255 * (c / 255) ** power));
  const d = img.data;
  for (let i = 0; i < d.length; i++) d[i] = lut[d[i]!]!;
}

/** Index of the palette colour nearest to an sRGB colour (ties go to the lower index). */
export function nearestPaletteIndex(r: number, g: number, b: number): number {
  const [L, A, B] = oklab(r, g, b);
  let best = 0;
  let bestD = Infinity;
  for (let i = 0; i < PALETTE_LAB.length; i++) {
    const p = PALETTE_LAB[i]!;
    // Lightness weighted up a little: in pixel art readable shapes come from value contrast.
    const dL = (L - p[0]) * 1.5;
    const dA = A - p[1];
    const dB = B - p[2];
    const d = dL * dL + dA * dA + dB * dB;
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

/** Grid size: long side `cells` cells, short side in proportion (at least one). */
export function gridSize(
  width: number,
  height: number,
  cells: number = GRID_LONG_SIDE,
): { cols: number; rows: number } {
  const long = Math.max(width, height);
  const scale = cells / long;
  const cols = Math.max(1, Math.round(width * scale));
  const rows = Math.max(1, Math.round(height * scale));
  return { cols, rows };
}

/** Cells on the long side for a photo whose largest face is `face` pixels wide (of `long`). */
export function faceGridLongSide(face: number, long: number): number {
  return Math.max(
    GRID_LONG_SIDE,
    Math.min(FACE_GRID_MAX, Math.ceil((FACE_CELLS * long) / Math.max(1, face))),
  );
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const bytes = firstImage(req);
  const work = await decodeRaw(bytes, { channels: 3, flatten: true, maxSide: FACE_WORK_SIDE });
  const pixels = { data: work.data as Buffer, width: work.width, height: work.height };
  const faces = (await detectFaces(pixels)).faces.filter((f) => f.score >= MIN_FACE_SCORE);
  return faces.length ? renderWithFaces(work, faces) : renderPlain(bytes);
}

/** Cells mapped to the palette (RGB per cell). */
function toPalette(cells: Uint8Array | Buffer, n: number): Uint8Array {
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    const p = PALETTE[nearestPaletteIndex(cells[i * 3]!, cells[i * 3 + 1]!, cells[i * 3 + 2]!)]!;
    out[i * 3] = p[0];
    out[i * 3 + 1] = p[1];
    out[i * 3 + 2] = p[2];
  }
  return out;
}

/** The same colour lift as the plain grid, then the shrink to cols x rows. */
const lift = (cols: number, rows: number) => (img: Sharp) =>
  img.modulate({ saturation: 1.2 }).linear(1.08, -8).resize(cols, rows, { fit: "fill", kernel: "mitchell" });

async function renderWithFaces(work: RawImage, faces: Face[]): Promise<EffectOutput> {
  const long = Math.max(work.width, work.height);
  const cellsLong = faceGridLongSide(Math.max(...faces.map(faceWidth)), long);
  const { cols, rows } = gridSize(work.width, work.height, cellsLong);
  const n = cols * rows;
  const cells = await transformRaw(work, lift(cols, rows));
  let lab = labOf(cells.data, n);
  const print = printRamp(lab, n);
  let out: Uint8Array;
  if (print) {
    lab = print.lab;
    out = print.out(cols, rows);
  } else out = toPalette(cells.data, n);
  const person = await personCells(work, cols, rows);
  const drawn = drawFaces(
    out,
    lab,
    cols,
    rows,
    faces,
    cols / work.width,
    rows / work.height,
    person?.mask ?? null,
    { data: work.data as Buffer, width: work.width, height: work.height },
    print ? { monoSkinHue: PRINT_SKIN_HUE } : {},
  );
  if (person) selOut(out, person.alpha, cols, rows, print?.darker);
  limitColours(out, n, MAX_COLOURS, drawn);
  return encodePng(upscaleCells(out, cols, rows, TARGET_LONG_SIDE));
}

/**
 * The person on the grid (the selfie matte: its value per cell and the cells at least half
 * person), or null when the matte holds no clear person.
 */
async function personCells(
  work: RawImage,
  cols: number,
  rows: number,
): Promise<{ mask: Uint8Array; alpha: Buffer } | null> {
  const matte = await personMatte({ data: work.data as Buffer, width: work.width, height: work.height });
  const small = await sharp(matte.alpha, { raw: { width: matte.width, height: matte.height, channels: 1 } })
    .resize(cols, rows, { fit: "fill", kernel: "mitchell" })
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
  const cells = new Uint8Array(cols * rows);
  let count = 0;
  for (let i = 0; i < cols * rows; i++) if ((cells[i] = small[i]! >= 128 ? 1 : 0)) count++;
  const share = count / (cols * rows);
  return share > 0.03 && share < 0.9 ? { mask: cells, alpha: small } : null;
}

/** Matte values a sure person cell and a sure background cell are on either side of an outline. */
const SURE_PERSON = 200;
const SURE_BACKGROUND = 56;

/**
 * Selective outline ("sel-out"): the person's edge cells, where the background begins, take a
 * darker palette shade of their own colour, so the figure stands off its background as a drawn
 * sprite does. Only where the matte is sure on both sides (an unsure matte, common on old
 * prints, would draw stray contours through the background). The frame's edge is no outline.
 */
function selOut(
  out: Uint8Array,
  alpha: Buffer,
  cols: number,
  rows: number,
  darker?: (L: number) => readonly number[],
): void {
  const edge: number[] = [];
  const bg = (i: number) => alpha[i]! <= SURE_BACKGROUND;
  for (let y = 0; y < rows; y++)
    for (let x = 0; x < cols; x++) {
      const i = y * cols + x;
      if (alpha[i]! < SURE_PERSON) continue;
      if (
        (x > 0 && bg(i - 1)) ||
        (x + 1 < cols && bg(i + 1)) ||
        (y > 0 && bg(i - cols)) ||
        (y + 1 < rows && bg(i + cols))
      )
        edge.push(i);
    }
  for (const i of edge) {
    const [L, A, B] = oklab(out[i * 3]!, out[i * 3 + 1]!, out[i * 3 + 2]!);
    if (L < 0.3) continue; // already dark enough to read as an edge
    const p = darker
      ? darker(L)
      : PALETTE[nearestPaletteIndex(...oklabToRgb(Math.max(0.1, L - 0.2), A * 0.9, B * 0.9))]!;
    out[i * 3] = p[0]!;
    out[i * 3 + 1] = p[1]!;
    out[i * 3 + 2] = p[2]!;
  }
}

/** A photo without faces: the plain grid (as before faces were drawn). */
async function renderPlain(bytes: Uint8Array): Promise<EffectOutput> {
  // A small upright working copy first (its size gives the grid), then one shrink straight
  // to the grid: the averaging kernel gives each cell its area's mean colour.
  const work = await decodeRaw(bytes, { channels: 3, flatten: true, maxSide: GRID_LONG_SIDE * 4 });
  const { cols, rows } = gridSize(work.width, work.height);
  liftShadows(work);
  const cells = await transformRaw(work, (img) =>
    img
      // Slightly punchier colour and contrast, as hand-made pixel art tends to be; it also
      // keeps muted photo tones from all collapsing onto the palette's greys.
      .modulate({ saturation: 1.2 })
      .linear(1.08, -8)
      .resize(cols, rows, { fit: "fill", kernel: "mitchell" }),
  );

  const print = printRamp(labOf(cells.data, cols * rows), cols * rows);
  if (print) return encodePng(upscaleCells(print.out(cols, rows), cols, rows, TARGET_LONG_SIDE));

  // Palette mapping, one colour per cell. Deterministic: no dithering noise, no randomness.
  // Then lone cells (photo noise: a speck of another colour in grass or fur) join their
  // neighbours, as a pixel artist keeps clusters clean; a lone darker cell (an eye, a nostril) stays.
  const idx = new Uint8Array(cols * rows);
  for (let i = 0; i < cols * rows; i++)
    idx[i] = nearestPaletteIndex(cells.data[i * 3]!, cells.data[i * 3 + 1]!, cells.data[i * 3 + 2]!);
  const clean = cleanLoneCells(idx, cols, rows, PALETTE_LAB_CELLS);
  const cellColour = new Uint8Array(cols * rows * 3);
  for (let i = 0; i < cols * rows; i++) cellColour.set(PALETTE[clean[i]!]!, i * 3);

  return encodePng(upscaleCells(cellColour, cols, rows, TARGET_LONG_SIDE));
}

/**
 * A b/w or toned photo (cells' chroma spread under `MONOCHROME_SPREAD`, or colours all on the
 * line of one tint's hue: a strong sepia) drawn in a deliberate
 * ramp instead of the palette (whose peach and olive cells speckle a grey print): its
 * lightness stretched to the ramp's range, each cell the step nearest in lightness, lone cells
 * joined to their neighbours. Returns null for a colour photo. `lab` is the cells' colour as
 * the faces are to read it (the stretched lightness, the print's own tint).
 */
function printRamp(
  lab: Float32Array,
  n: number,
): {
  lab: Float32Array;
  out: (cols: number, rows: number) => Uint8Array;
  darker: (L: number) => readonly number[];
} | null {
  const tone = printTone(lab, n);
  if (!tone) return null;
  const ramp = printRampColours(tone.warm);
  const rgb = Array.from({ length: PRINT_STEPS }, (_, s) =>
    oklabToRgb(ramp[s * 3]!, ramp[s * 3 + 1]!, ramp[s * 3 + 2]!),
  );
  const [lo, hi] = lightnessRange(lab, n, 0.01, 0.99);
  const span = Math.max(0.2, hi - lo);
  const stretched = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    const t = Math.max(0, Math.min(1, (lab[i * 3]! - lo) / span));
    stretched[i * 3] = PRINT_L[0] - 0.02 + (PRINT_L[1] - PRINT_L[0] + 0.04) * t;
    stretched[i * 3 + 1] = lab[i * 3 + 1]!;
    stretched[i * 3 + 2] = lab[i * 3 + 2]!;
  }
  const step = (L: number) =>
    Math.max(
      0,
      Math.min(
        PRINT_STEPS - 1,
        Math.round(((L - PRINT_L[0]) / (PRINT_L[1] - PRINT_L[0])) * (PRINT_STEPS - 1)),
      ),
    );
  return {
    lab: stretched,
    out: (cols, rows) => {
      const idx = new Uint8Array(n);
      for (let i = 0; i < n; i++) idx[i] = step(stretched[i * 3]!);
      const clean = cleanLoneCells(idx, cols, rows, ramp);
      const out = new Uint8Array(n * 3);
      for (let i = 0; i < n; i++) out.set(rgb[clean[i]!]!, i * 3);
      return out;
    },
    darker: (L) => rgb[Math.max(0, step(L) - 2)]!,
  };
}
