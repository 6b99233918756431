import sharp from "sharp";
import { transformRaw, type RawImage } from "../../shared/image-io";
import { largestComponent } from "../../shared/components";
import { fillHoles } from "../../shared/mask";
import {
  cleanLoneCells,
  labOf,
  kMeansPalette,
  lightnessRange,
  nearestIndices,
  paletteRgb,
} from "../../shared/pixel-art";
import { cutOutWholeObject } from "../../shared/whole-object";
import { detectObjects } from "../../vision/human";

/**
 * A colour photo of a pet or an object, without a person, as a 16-bit game screen. Its subject
 * (the object detector's most confident non-person, cut out whole) becomes the sprite: a game
 * palette of its own with slots kept for small colours the main clusters swallow (a cat's green
 * eyes), flat cells, the one-cell dark outline. The rest of the photo is its backdrop, drawn as
 * a 16-bit game's background layer: coarser two-cell tiles, 3 to 6 colours of its own at a
 * softer contrast than the sprite, checker dithered between them.
 */

/** Object detections under this score are not taken as the subject. */
const MIN_OBJECT_SCORE = 0.3;
/** A subject must fill at least this share of the photo (as the stickers' `findSubject`). */
const MIN_SUBJECT_SHARE = 0.03;
/** A person the matte did not take (a crowd, a close-up) at least this large: left to the whole-photo path. */
const PERSON_SHARE = 0.05;

/** The subject's cells (0/1), or "person" when the photo holds a sizeable person, or null. */
export async function subjectCells(
  work: RawImage,
  cols: number,
  rows: number,
  out?: { label?: string },
): Promise<Uint8Array | "person" | null> {
  const { width, height } = work;
  const area = width * height;
  const objects = await detectObjects({ data: work.data, width, height }, MIN_OBJECT_SCORE);
  const share = (o: { box: [number, number, number, number] }) => (o.box[2] * o.box[3]) / area;
  const thing = objects.find((o) => o.label !== "person" && share(o) >= MIN_SUBJECT_SHARE);
  const person = objects.find((o) => o.label === "person" && share(o) >= PERSON_SHARE);
  if (person && (!thing || person.score >= thing.score)) return "person";
  // Nothing the detector knows: the photo is drawn whole. A cut by focus alone took the sharp
  // middle of an undetected close-up's face (an outline across a cat's face).
  if (!thing) return null;
  if (out) out.label = thing.label;
  // Cut at twice the grid's size (GrabCut's cost grows with the area; the sprite needs no more).
  const k = Math.min(1, (2 * Math.max(cols, rows)) / Math.max(width, height));
  const mw = Math.max(1, Math.round(width * k));
  const mh = Math.max(1, Math.round(height * k));
  const whole = await cutOutWholeObject(
    await transformRaw(work, (img) => img.resize(mw, mh, { fit: "fill" })),
    [thing.box[0] * k, thing.box[1] * k, thing.box[2] * k, thing.box[3] * k],
  );
  // A subject filling the whole frame leaves no sprite to cut: the photo is drawn whole.
  if (!whole || whole.edges >= 4) return null;
  const mask = whole.mask.data.map((v) => (v ? 255 : 0));
  const small = await sharp(Buffer.from(mask), { raw: { width: mw, height: mh, channels: 1 } })
    .resize(cols, rows, { fit: "fill", kernel: "mitchell" })
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
  const cells = largestComponent(
    Uint8Array.from({ length: cols * rows }, (_, i) => (small[i]! >= 128 ? 1 : 0)),
    cols,
    rows,
  );
  const filled = fillHoles({ data: cells, width: cols, height: rows }).data;
  let n = 0;
  for (const v of filled) n += v;
  return n >= cols * rows * 0.02 ? filled : null;
}

/** Chroma of the sprite raised a little (a cluster mean is paler than the colours it stands for). */
const SPRITE_CHROMA = 1.15;
/** The sprite's lightness gamma after the stretch: under 1 opens the shadows. */
const SPRITE_GAMMA = 0.8;
/** A sprite whose median lightness (after the stretch) is under this is low-key: its shadows are opened. */
const LOW_KEY = 0.55;
/** Weight of a and b against lightness when matching a cell to the sprite's colours. */
const HUE_WEIGHT = 2;
/**
 * A cell at least this far from every main colour, judged by hue (the a, b difference across
 * the main colour's hue direction, weighted ACCENT_HUE_WEIGHT; along it, a richer or paler
 * shade, and lightness count once) is an accent the clusters swallowed. A cat's yellow-green
 * iris beside its tan fur is about 0.12 off; fur cells are within 0.06 of a main colour.
 */
const ACCENT_DISTANCE = 0.09;
const ACCENT_HUE_WEIGHT = 4;
/** Lightness weight when the accents are clustered (by hue, not by shade). */
const ACCENT_L_WEIGHT = 0.3;
/** Fewer cells far from the main colours than this: no accents. */
const MIN_ACCENT_CELLS = 3;
/** Accents painted this much richer (a small colour must read at a glance). */
const ACCENT_CHROMA = 1.3;
/** A cell with under this share of a palette colour's chroma is a grey beside it, not a shade of it. */
const NEUTRAL = 0.3;
/** Palette slots kept for accents. */
const ACCENTS = 2;

const weighted = (a: Float32Array, i: number, b: Float32Array, j: number, w = HUE_WEIGHT) =>
  Math.hypot(a[i * 3]! - b[j * 3]!, w * (a[i * 3 + 1]! - b[j * 3 + 1]!), w * (a[i * 3 + 2]! - b[j * 3 + 2]!));

/** How far a cell's colour is from a palette colour, a different hue counting most. */
function hueApart(lab: Float32Array, i: number, palette: Float32Array, j: number): number {
  const dl = lab[i * 3]! - palette[j * 3]!;
  const da = lab[i * 3 + 1]! - palette[j * 3 + 1]!;
  const db = lab[i * 3 + 2]! - palette[j * 3 + 2]!;
  const pa = palette[j * 3 + 1]!;
  const pb = palette[j * 3 + 2]!;
  const c = Math.hypot(pa, pb);
  // A grey palette colour has no hue: any colour is across it.
  if (c < 0.02) return Math.hypot(dl, ACCENT_HUE_WEIGHT * da, ACCENT_HUE_WEIGHT * db);
  const along = (da * pa + db * pb) / c;
  const across = (da * pb - db * pa) / c;
  // Session 11: a near-grey cell beside a colour (a steel spoon on a red cup) is a colour of
  // its own, not a paler shade of it: the loss of chroma counts as a change of hue.
  const grey = Math.hypot(lab[i * 3 + 1]!, lab[i * 3 + 2]!) < NEUTRAL * c;
  return Math.hypot(dl, grey ? ACCENT_HUE_WEIGHT * along : along, ACCENT_HUE_WEIGHT * across);
}

/**
 * The sprite's palette (OKLab) and each cell's entry: k - ACCENTS colours clustered over its
 * cells, then up to ACCENTS more clustered by hue over the cells far from all of those (a
 * small distinct colour: green eyes, a pink nose, a collar, a logo), so it keeps an entry of
 * its own; those cells take the accent nearest in hue, the rest the nearest main colour.
 * Without such cells all k are clustered.
 */
export function spritePalette(
  lab: Float32Array,
  n: number,
  use: Uint8Array,
  k: number,
): { palette: Float32Array; idx: Uint8Array } {
  const main = distinctPalette(lab, n, k - ACCENTS, use);
  const far = new Uint8Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (!use[i]) continue;
    let d = Infinity;
    for (let j = 0; j < main.length / 3; j++) d = Math.min(d, hueApart(lab, i, main, j));
    if (d > ACCENT_DISTANCE) {
      far[i] = 1;
      count++;
    }
  }
  if (count < MIN_ACCENT_CELLS) {
    const palette = distinctPalette(lab, n, k, use);
    return { palette, idx: nearestWeighted(lab, n, palette) };
  }
  // Clustered by hue (a and b weighted up, lightness down): a green iris and a pink nose, not their mean.
  const byHue = Float32Array.from(lab, (v, i) => (i % 3 ? v * ACCENT_HUE_WEIGHT : v * ACCENT_L_WEIGHT));
  const accentsByHue = kMeansPalette(byHue, n, ACCENTS, { use: far });
  const accentIdx = nearestIndices(byHue, n, accentsByHue);
  const accents = Float32Array.from(accentsByHue, (v, i) =>
    i % 3 ? (v / ACCENT_HUE_WEIGHT) * ACCENT_CHROMA : v / ACCENT_L_WEIGHT,
  );
  const palette = new Float32Array(main.length + accents.length);
  palette.set(main);
  palette.set(accents, main.length);
  const idx = nearestWeighted(lab, n, main);
  for (let i = 0; i < n; i++) if (far[i]) idx[i] = main.length / 3 + accentIdx[i]!;
  return { palette, idx };
}

/** Two main colours closer than this (OKLab) are one shade drawn twice: fur read as camouflage. */
const MIN_STEP = 0.09;

/**
 * Session 11: k-means colours over `use`, at most k, fewer while two of them lie within
 * MIN_STEP: a uniform coat or surface gets a few distinct shades, as a sprite artist's ramp,
 * not many near-alike ones patched across it.
 */
function distinctPalette(lab: Float32Array, n: number, k: number, use: Uint8Array): Float32Array {
  let palette = kMeansPalette(lab, n, k, { use });
  for (let kk = k - 1; kk >= 4; kk--) {
    let min = Infinity;
    const m = palette.length / 3;
    for (let a = 0; a < m; a++)
      for (let b = a + 1; b < m; b++)
        min = Math.min(
          min,
          Math.hypot(
            palette[a * 3]! - palette[b * 3]!,
            palette[a * 3 + 1]! - palette[b * 3 + 1]!,
            palette[a * 3 + 2]! - palette[b * 3 + 2]!,
          ),
        );
    if (min >= MIN_STEP) break;
    palette = kMeansPalette(lab, n, kk, { use });
  }
  return palette;
}

/** Each cell's nearest palette entry by the weighted distance. */
function nearestWeighted(lab: Float32Array, n: number, palette: Float32Array): Uint8Array {
  const idx = new Uint8Array(n);
  const k = palette.length / 3;
  for (let i = 0; i < n; i++) {
    let best = 0;
    let bestD = Infinity;
    for (let j = 0; j < k; j++) {
      const d = weighted(lab, i, palette, j);
      if (d < bestD) {
        bestD = d;
        best = j;
      }
    }
    idx[i] = best;
  }
  return idx;
}

/** Lightness stretched (1..99th percentile over `use`, gain capped at 2), chroma scaled. */
function stretch(
  lab: Float32Array,
  n: number,
  use: Uint8Array | undefined,
  chroma: number,
  lo0 = 0.12,
  span = 0.86,
) {
  const out = Float32Array.from(lab);
  const [lo, hi] = lightnessRange(lab, n, 0.01, 0.99, use);
  const gain = Math.min(2, Math.max(1, span / Math.max(1e-3, hi - lo)));
  for (let i = 0; i < n; i++) {
    out[i * 3] = Math.max(0, Math.min(1, lo0 + (lab[i * 3]! - lo) * gain));
    out[i * 3 + 1] = lab[i * 3 + 1]! * chroma;
    out[i * 3 + 2] = lab[i * 3 + 2]! * chroma;
  }
  return out;
}

/** The sprite's cells drawn: indices into `rgb` (sRGB, k x 3) for the cells of `use`. */
export function drawSprite(lab: Float32Array, cols: number, rows: number, use: Uint8Array, k: number) {
  const n = cols * rows;
  const toned = stretch(lab, n, use, SPRITE_CHROMA);
  // Session 11: a low-key sprite's shadows opened (a dark red cup's body read as murk beside
  // its saucer's shadow); a light one (a tabby's pale fur) keeps its tones and its eyes' colour.
  const ls: number[] = [];
  for (let i = 0; i < n; i++) if (use[i]) ls.push(toned[i * 3]!);
  ls.sort((a, b) => a - b);
  if ((ls[ls.length >> 1] ?? 1) < LOW_KEY)
    for (let i = 0; i < n; i++) toned[i * 3] = toned[i * 3]! ** SPRITE_GAMMA;
  const { palette, idx } = spritePalette(toned, n, use, k);
  const backdrop = use.map((v) => (v ? 0 : 1));
  return { idx: cleanLoneCells(idx, cols, rows, palette, { ignore: backdrop }), rgb: paletteRgb(palette) };
}

/** The backdrop layer's tiles, in cells. */
const TILE = 2;
/** The backdrop's chroma and lightness range: pushed back behind the sprite. */
const BACK_CHROMA = 1;
/** Share of the way to the second nearest colour past which a tile is checker dithered. */
const DITHER = 0.4;

/**
 * The backdrop layer: the cells outside `sprite` in `k` colours of
 * their own, averaged over TILE x TILE tiles, paler and softer than the sprite, with a one-cell
 * checker where a tile lies between two colours. Returns RGB cells (the sprite's left black).
 */
export function drawBackdrop(
  lab: Float32Array,
  cols: number,
  rows: number,
  sprite: Uint8Array,
  k: number,
): Uint8Array {
  const n = cols * rows;
  const tcols = Math.ceil(cols / TILE);
  const trows = Math.ceil(rows / TILE);
  const tn = tcols * trows;
  const tiles = new Float32Array(tn * 3);
  const weight = new Float32Array(tn);
  const all = new Float32Array(tn * 3);
  const allW = new Float32Array(tn);
  for (let y = 0; y < rows; y++)
    for (let x = 0; x < cols; x++) {
      const i = y * cols + x;
      const t = Math.floor(y / TILE) * tcols + Math.floor(x / TILE);
      for (let c = 0; c < 3; c++) all[t * 3 + c]! += lab[i * 3 + c]!;
      allW[t]!++;
      if (sprite[i]) continue;
      for (let c = 0; c < 3; c++) tiles[t * 3 + c]! += lab[i * 3 + c]!;
      weight[t]!++;
    }
  const use = new Uint8Array(tn);
  for (let t = 0; t < tn; t++) {
    // A tile wholly under the sprite takes its whole mean (it is painted over anyway).
    const w = weight[t]! || allW[t]!;
    const src = weight[t]! ? tiles : all;
    for (let c = 0; c < 3; c++) tiles[t * 3 + c] = src[t * 3 + c]! / w;
    use[t] = weight[t]! ? 1 : 0;
  }
  // Softer than the sprite: a narrower lightness range, lifted off black, less chroma.
  const toned = sprite ? stretch(tiles, tn, use, BACK_CHROMA, 0.15, 0.75) : stretch(tiles, tn, use, 1.1);
  const palette = kMeansPalette(toned, tn, k, { use });
  const kk = palette.length / 3;
  const rgb = paletteRgb(palette);
  const first = nearestIndices(toned, tn, palette);
  const second = new Uint8Array(tn);
  const mix = new Float32Array(tn);
  const d = (t: number, j: number) =>
    Math.hypot(
      toned[t * 3]! - palette[j * 3]!,
      toned[t * 3 + 1]! - palette[j * 3 + 1]!,
      toned[t * 3 + 2]! - palette[j * 3 + 2]!,
    );
  for (let t = 0; t < tn; t++) {
    const a = first[t]!;
    let b = a;
    let bd = Infinity;
    for (let j = 0; j < kk; j++)
      if (j !== a && d(t, j) < bd) {
        bd = d(t, j);
        b = j;
      }
    second[t] = b;
    const da = d(t, a);
    mix[t] = da / Math.max(1e-6, da + bd);
  }
  const out = new Uint8Array(n * 3);
  for (let y = 0; y < rows; y++)
    for (let x = 0; x < cols; x++) {
      const i = y * cols + x;
      if (sprite[i]) continue;
      const t = Math.floor(y / TILE) * tcols + Math.floor(x / TILE);
      const j = mix[t]! > DITHER && (x + y) % 2 === 0 ? second[t]! : first[t]!;
      out.set(rgb.subarray(j * 3, j * 3 + 3), i * 3);
    }
  return out;
}

/** The detector's animals (COCO): a subject with eyes to draw. */
export const ANIMALS = new Set([
  "bird",
  "cat",
  "dog",
  "horse",
  "sheep",
  "cow",
  "elephant",
  "bear",
  "zebra",
  "giraffe",
]);
/** An eye's ring (OKLab L) is at most this dark: a catch-light on dark fur or an iris, not on a light coat. */
const EYE_RING = 0.38;
/** A cell this dark or darker beside an eye's catch-light is its pupil. */
const PUPIL_L = 0.45;

/**
 * Session 11: an animal's eyes as a sprite artist draws them, a dark pupil with a one-cell shine,
 * from the catch-lights on a dark ring (`findShines`; the grid alone loses them in a dark mask
 * or fur). The shine takes the sprite's lightest colour, the pupil the outline's: no new colour.
 */
export function drawEyes(
  out: Uint8Array,
  lab: Float32Array,
  cols: number,
  rows: number,
  sprite: Uint8Array,
  shines: { cell: number; ring: number }[],
  light: Uint8Array,
  dark: Uint8Array,
): number {
  let drawn = 0;
  for (const { cell, ring } of shines) {
    // One animal, two eyes: the strongest two (a wet nose's or wet fur's glints come after).
    if (ring > EYE_RING || drawn >= 2) continue;
    const x0 = cell % cols;
    const y0 = Math.floor(cell / cols);
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++) {
        const x = x0 + dx;
        const y = y0 + dy;
        if (x < 0 || y < 0 || x >= cols || y >= rows) continue;
        const i = y * cols + x;
        if (sprite[i] && lab[i * 3]! <= PUPIL_L) out.set(dark, i * 3);
      }
    out.set(light, cell * 3);
    drawn++;
  }
  return drawn;
}

/** A catch-light: at least this light (OKLab L) at the working copy's size... */
const SHINE_L = 0.78;
/** ...and this much lighter than the ring around it (an eye's dark iris and pupil round it). */
const SHINE_LIFT = 0.3;
/** The ring's radius, in working-copy pixels (a catch-light is 1-3 px at 384 px, an eye 8-30). */
const SHINE_RING = 4;
/** At most this many pixels near it as light as it: a small spot, not a light patch or a rim. */
const SHINE_SPOT = 10;

/**
 * Session 11: the catch-lights the grid loses (the 3 px median and the area average dim a 2 px
 * spot into the dark of an eye): small spots much lighter than a dark ring round them, found on
 * the working copy, as the cells of `sprite` holding them (one per cell, strongest first).
 */
export function findShines(
  work: RawImage,
  cols: number,
  rows: number,
  sprite: Uint8Array,
): { cell: number; ring: number }[] {
  const { width, height, data } = work;
  const L = new Float32Array(width * height);
  const lab = labOf(data, width * height);
  for (let i = 0; i < L.length; i++) L[i] = lab[i * 3]!;
  const ring: [number, number][] = [];
  for (let a = 0; a < 16; a++)
    ring.push([
      Math.round(SHINE_RING * Math.cos((a * Math.PI) / 8)),
      Math.round(SHINE_RING * Math.sin((a * Math.PI) / 8)),
    ]);
  const found: { cell: number; ring: number; l: number }[] = [];
  const sx = cols / width;
  const sy = rows / height;
  for (let y = SHINE_RING; y < height - SHINE_RING; y++)
    for (let x = SHINE_RING; x < width - SHINE_RING; x++) {
      const l = L[y * width + x]!;
      if (l < SHINE_L) continue;
      const cell = Math.min(rows - 1, Math.floor(y * sy)) * cols + Math.min(cols - 1, Math.floor(x * sx));
      if (!sprite[cell]) continue;
      // A local maximum.
      let top = true;
      for (let dy = -1; dy <= 1 && top; dy++)
        for (let dx = -1; dx <= 1; dx++) if ((dx || dy) && L[(y + dy) * width + x + dx]! > l) top = false;
      if (!top) continue;
      let sum = 0;
      let max = 0;
      for (const [dx, dy] of ring) {
        const v = L[(y + dy) * width + x + dx]!;
        sum += v;
        max = Math.max(max, v);
      }
      const mean = sum / ring.length;
      if (l - mean < SHINE_LIFT || max > l - SHINE_LIFT / 2) continue;
      let spot = 0;
      for (let dy = -2; dy <= 2; dy++)
        for (let dx = -2; dx <= 2; dx++) if (L[(y + dy) * width + x + dx]! > l - 0.12) spot++;
      if (spot > SHINE_SPOT) continue;
      found.push({ cell, ring: mean, l });
    }
  found.sort((a, b) => b.l - a.l);
  const seen = new Set<number>();
  return found
    .filter((f) => !seen.has(f.cell) && (seen.add(f.cell), true))
    .map(({ cell, ring: r }) => ({ cell, ring: r }));
}
