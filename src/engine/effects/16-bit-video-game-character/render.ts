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
  COOL_RAMP,
  hexRgb,
  kMeansPalette,
  labOf,
  lightnessRange,
  nearestIndices,
  paint,
  paletteRgb,
} from "../../shared/pixel-art";
import { components } from "../../shared/components";
import { drawFaces, limitColours, nearestOf, SKIN } from "../../shared/pixel-face";
import { PRINT_SKIN_HUE, printTone } from "../../shared/print-ramp";
import { detectFaces, personMatte, type Face } from "../../vision/human";
import { ANIMALS, drawBackdrop, drawEyes, drawSprite, findShines, subjectCells } from "./scene";
import type { RenderRequest } from "@/core/ports/renderer";

/**
 * 16-Bit Video Game Character: the person as a 16-bit console sprite. The person is cut out
 * (the selfie matte, on the cell grid), drawn with at most 12 colours of their own (a
 * deliberate ramp for a b/w or toned photo), lone noisy cells cleaned, given the one-pixel dark
 * outline sprites have, and set on a plain banded game sky; then a crisp integer upscale.
 * A colour photo of a pet or an object is a game screen: the subject as the outlined sprite on
 * a dithered backdrop of its own surroundings (`./scene`); any other photo without a clear
 * person (a landscape, a print) is drawn whole in 16 colours of its own or on its ramp.
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
 * A sepia or brown-toned photo's ramp: the warm ramp's cool darks, then browns that pale
 * towards cream with less and less chroma, so a white dress reads as cloth, not as skin.
 */
export const SEPIA_RAMP = ["181425", "3e2731", "6c443a", "936a54", "b89779", "decfb7", "f9f5ec"] as const;

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

/** A ramp's colours, matched by lightness alone (as `monochromeRamp`'s). */
function rampOf(hexes: readonly string[]): { match: Float32Array; rgb: Uint8Array } {
  const rgb = hexRgb(hexes);
  const match = labOf(rgb, hexes.length);
  for (let s = 0; s < hexes.length; s++) match[s * 3 + 1] = match[s * 3 + 2] = 0;
  return { match, rgb };
}

/** Lightness stretched over the given cells (1st..99th percentile, gain capped), chroma raised. */
function tone(
  lab: Float32Array,
  n: number,
  use: Uint8Array | undefined,
  chroma: number,
  lift: boolean,
): void {
  const [lo, hi] = lightnessRange(lab, n, 0.01, 0.99, use);
  const gain = Math.min(2, Math.max(1, 0.78 / Math.max(1e-3, hi - lo)));
  for (let i = 0; i < n; i++) {
    const L = lab[i * 3]!;
    // A monochrome print's mid-tones (faces) lifted, its whites kept white: the full ramp is used.
    const t = Math.max(0, Math.min(1, (L - lo) / Math.max(1e-3, hi - lo)));
    lab[i * 3] = lift ? 0.12 + 0.86 * t ** 0.8 : Math.max(0, Math.min(1, 0.12 + (L - lo) * gain));
    lab[i * 3 + 1] = lab[i * 3 + 1]! * chroma;
    lab[i * 3 + 2] = lab[i * 3 + 2]! * chroma;
  }
}

/** Palette indices and colours (sRGB) for the cells in `use`: a ramp if monochrome, else their own k colours. */
function drawCells(lab: Float32Array, n: number, k: number, use?: Uint8Array) {
  const sprite = use !== undefined;
  // A b/w or toned print (the whole photo's colours judged, as the pixel illustration does).
  const print = printTone(lab, n);
  const monochrome = print !== null;
  const chroma = monochrome ? 1 : 1.3;
  tone(lab, n, use, chroma, monochrome && sprite);
  // Faces are shaded from their own colour at the photo's chroma (raised, skin turns orange).
  const faceLab = Float32Array.from(lab);
  for (let i = 0; i < n * 3; i++) if (i % 3) faceLab[i] = faceLab[i]! / chroma;
  if (print) {
    const { match, rgb } = rampOf(print.warm ? SEPIA_RAMP : COOL_RAMP);
    for (let i = 0; i < n; i++) lab[i * 3 + 1] = lab[i * 3 + 2] = 0;
    return { idx: nearestIndices(lab, n, match), match, rgb, monochrome, warm: print.warm, faceLab };
  }
  const match = kMeansPalette(lab, n, k, { use });
  const idx = nearestIndices(lab, n, match);
  // Cluster means are paler than the colours they stand for: painted a little richer.
  const paint = Float32Array.from(match);
  for (let j = 0; j < paint.length; j += 3) {
    paint[j + 1] = paint[j + 1]! * 1.25;
    paint[j + 2] = paint[j + 2]! * 1.25;
  }
  return { idx, match, rgb: paletteRgb(paint), monochrome, warm: false, faceLab };
}

/** Faces the detector is less sure of are left to the palette (as in the pixel illustration). */
const MIN_FACE_SCORE = 0.85;
/** Long side of the copy faces are found on (the mesh needs the detail). */
const FACE_WORK_SIDE = 768;

/** A face's centre (the nose bridge) in cells. */
const faceCell = (f: Face, sx: number, sy: number, cols: number, rows: number): number =>
  Math.min(rows - 1, Math.max(0, Math.floor(f.mesh[168]![1] * sy))) * cols +
  Math.min(cols - 1, Math.max(0, Math.floor(f.mesh[168]![0] * sx)));

/**
 * One figure, no floating pieces: only the silhouette's piece holding the most cells and the
 * pieces holding a face are kept (a child's head whose body the matte missed, a shard of a
 * torn corner, would otherwise float beside the figure, held by its outline alone).
 */
export function keepFigure(cells: Uint8Array, cols: number, rows: number, seeds: number[]): Uint8Array {
  const { labels, count } = components(cells, cols, rows);
  const sizes = new Int32Array(count + 1);
  for (let i = 0; i < cols * rows; i++) sizes[labels[i]!]!++;
  const keep = new Uint8Array(count + 1);
  let largest = 0;
  for (let l = 1; l <= count; l++) if (!largest || sizes[l]! > sizes[largest]!) largest = l;
  keep[largest] = 1;
  for (const s of seeds) if (s >= 0 && s < cols * rows) keep[labels[s]!] = 1;
  keep[0] = 0;
  return cells.map((_, i) => keep[labels[i]!]!);
}

/** Offsets of the round 5 x 5 brush (corners off) a spur must be narrower than to be trimmed. */
const BRUSH: Array<[number, number]> = [];
for (let dy = -2; dy <= 2; dy++)
  for (let dx = -2; dx <= 2; dx++) if (Math.abs(dx) + Math.abs(dy) < 4) BRUSH.push([dx, dy]);

/**
 * Long thin spurs trimmed: what a morphological opening with the round 5-cell brush takes
 * away, where it is a sizeable piece (at least 0.5 % of the silhouette): an unsure matte's
 * finger along a torn corner or a crease. Small bits it takes (a lock of hair, a finger tip)
 * stay, so the silhouette keeps its detail.
 */
export function trimSpurs(cells: Uint8Array, cols: number, rows: number): Uint8Array {
  const morph = (src: Uint8Array, all: boolean) => {
    const out = new Uint8Array(cols * rows);
    for (let y = 0; y < rows; y++)
      for (let x = 0; x < cols; x++) {
        let hit = all;
        for (const [dx, dy] of BRUSH) {
          const nx = x + dx;
          const ny = y + dy;
          // Beyond the frame counts as inside (a figure cut by the frame is not thin there).
          const v = nx < 0 || ny < 0 || nx >= cols || ny >= rows ? 1 : src[ny * cols + nx]!;
          if (all ? !v : v) {
            hit = !all;
            break;
          }
        }
        out[y * cols + x] = hit ? 1 : 0;
      }
    return out;
  };
  const opened = morph(morph(cells, true), false);
  const removed = cells.map((v, i) => (v && !opened[i] ? 1 : 0));
  const { labels, count } = components(removed, cols, rows);
  const sizes = new Int32Array(count + 1);
  let area = 0;
  for (let i = 0; i < cols * rows; i++) {
    sizes[labels[i]!]!++;
    area += cells[i]!;
  }
  const min = Math.max(10, area * 0.005);
  return cells.map((v, i) => (v && labels[i] && sizes[labels[i]!]! >= min ? 0 : v));
}

/**
 * A print's grain and paper texture taken out of its ramp: a cell whose colour at most one of
 * its eight neighbours shares takes the colour at least five of them share (two-cell specks and
 * ragged steps become clean clusters, as a pixel artist shades cloth). Cells in `ignore` are
 * neither changed nor counted. One pass.
 */
export function smoothSpecks(idx: Uint8Array, cols: number, rows: number, ignore?: Uint8Array): Uint8Array {
  const out = Uint8Array.from(idx);
  const counts = new Uint8Array(256);
  for (let y = 0; y < rows; y++)
    for (let x = 0; x < cols; x++) {
      const i = y * cols + x;
      if (ignore?.[i]) continue;
      counts.fill(0);
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if ((!dx && !dy) || nx < 0 || ny < 0 || nx >= cols || ny >= rows || ignore?.[ny * cols + nx])
            continue;
          counts[idx[ny * cols + nx]!]!++;
        }
      if (counts[idx[i]!]! > 1) continue;
      for (let c = 0; c < 256; c++)
        if (counts[c]! >= 5) {
          out[i] = c;
          break;
        }
    }
  return out;
}

/** The sure faces of the photo, found on a 768 px copy, and the scale from its pixels to cells. */
async function findFaces(bytes: Uint8Array, cols: number, rows: number) {
  const img = await decodeRaw(bytes, { channels: 3, flatten: true, maxSide: FACE_WORK_SIDE });
  const big = { data: img.data as Buffer, width: img.width, height: img.height };
  const sure = (await detectFaces(big)).faces.filter((f) => f.score >= MIN_FACE_SCORE);
  return { big, sx: cols / img.width, sy: rows / img.height, sure };
}

/** Colour distance (OKLab, lightness weighted) under which a face's feature takes a ramp colour. */
const SNAP = 0.07;

/**
 * A hand-coloured print's colours back to `max` over `cells`: the cells no face was drawn on
 * keep the print's ramp; a face's feature colour near a ramp or skin colour takes it (a dark
 * lash line the ramp's near-black, an eye white the paper white), then the faces' colours are
 * merged down to what the ramp leaves (skin ramp colours kept over features').
 */
export function handColour(out: Uint8Array, drawn: Uint8Array, cells: number[], max: number): void {
  const keyOf = (i: number) => (out[i * 3]! << 16) | (out[i * 3 + 1]! << 8) | out[i * 3 + 2]!;
  const rgbOfKey = (k: number) => [(k >> 16) & 255, (k >> 8) & 255, k & 255];
  const face = cells.filter((i) => drawn[i]);
  if (!face.length) return;
  const ramp = new Set<number>();
  const skin = new Set<number>();
  for (const i of cells) (drawn[i] ? (drawn[i] === SKIN ? skin : null) : ramp)?.add(keyOf(i));
  const choices = [...ramp, ...skin].map(rgbOfKey);
  const choiceLab = choices.map((c) => labOf(Uint8Array.from(c), 1));
  for (const i of face) {
    if (drawn[i] === SKIN || !choices.length) continue;
    const c = [out[i * 3]!, out[i * 3 + 1]!, out[i * 3 + 2]!];
    const j = nearestOf(c, choices);
    const a = labOf(Uint8Array.from(c), 1);
    const b = choiceLab[j]!;
    if (Math.hypot((a[0]! - b[0]!) * 1.5, a[1]! - b[1]!, a[2]! - b[2]!) < SNAP) out.set(choices[j]!, i * 3);
  }
  const packed = new Uint8Array(face.length * 3);
  face.forEach((i, j) => packed.set(out.subarray(i * 3, i * 3 + 3), j * 3));
  const shared = new Set(face.map(keyOf).filter((k) => ramp.has(k))).size;
  limitColours(
    packed,
    face.length,
    Math.max(4, max - ramp.size + shared),
    Uint8Array.from(face, (i) => drawn[i]!),
  );
  face.forEach((i, j) => out.set(packed.subarray(j * 3, j * 3 + 3), i * 3));
}

/** A print's cells at least this light (OKLab L) above or beside a face are pale hair... */
const PALE_HAIR_L = 0.6;
/** ...and a face is fair-haired when at least this share of its hair window is pale... */
const FAIR_SHARE = 0.35;
/** ...then its hair is every cell of the window at least this light (the shadow side too). */
const HAIR_L = 0.45;
/** Fewer hair cells than this over all faces: none drawn (a stray light cell is not hair). */
const MIN_HAIR_CELLS = 4;
/** The hand-coloured hair: a light golden brown, as a colourist tinted a child's fair hair. */
const HAIR_TINT: readonly [number, number] = [0.015, 0.08];

/**
 * Session 11: the hair of each fair-haired face on a print. Its window: the sprite's cells no
 * face was drawn on, from above the mesh's top down to a quarter of the face's height (the
 * temples), over the face's width grown by a sixth each side. A face is fair-haired when a good
 * share of the window is pale; its hair is then the window's cells but the darkest (kept as
 * the ramp's navy shading). Dark hair keeps the ramp (it reads as dark hair); fair hair in the
 * cool ramp's blue-greys read as grey, a fair-haired child as an old man.
 */
export function paleHair(
  out: Uint8Array,
  drawn: Uint8Array,
  person: Uint8Array,
  faces: Face[],
  sx: number,
  sy: number,
  cols: number,
  rows: number,
): number[] {
  const hair = new Set<number>();
  for (const f of faces) {
    const xs = f.mesh.map((p) => p[0] * sx);
    const ys = f.mesh.map((p) => p[1] * sy);
    const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
    const [y0, y1] = [Math.min(...ys), Math.max(...ys)];
    const w = x1 - x0;
    const h = y1 - y0;
    const window: { i: number; l: number }[] = [];
    for (
      let y = Math.max(0, Math.floor(y0 - 0.7 * h));
      y <= Math.min(rows - 1, Math.floor(y0 + 0.25 * h));
      y++
    )
      for (
        let x = Math.max(0, Math.floor(x0 - w / 6));
        x <= Math.min(cols - 1, Math.floor(x1 + w / 6));
        x++
      ) {
        const i = y * cols + x;
        if (person[i] && !drawn[i]) window.push({ i, l: labOf(out.subarray(i * 3, i * 3 + 3), 1)[0]! });
      }
    const pale = window.filter((c) => c.l >= PALE_HAIR_L).length;
    if (!window.length || pale < window.length * FAIR_SHARE) continue;
    for (const c of window) if (c.l >= HAIR_L) hair.add(c.i);
  }
  return hair.size >= MIN_HAIR_CELLS ? [...hair] : [];
}

/** The hair cells in one golden brown at their mean lightness (a little darker: hair, not skin). */
export function tintHair(out: Uint8Array, hair: number[]): void {
  if (!hair.length) return;
  let L = 0;
  for (const i of hair) L += labOf(out.subarray(i * 3, i * 3 + 3), 1)[0]!;
  const tint = paletteRgb(Float32Array.of(L / hair.length - 0.03, HAIR_TINT[0], HAIR_TINT[1]));
  for (const i of hair) out.set(tint, i * 3);
}

/**
 * A colour photo without a clear person as a game screen (`./scene`): its subject as the sprite
 * in at most 12 colours of its own with the one-cell dark outline, on its own background
 * simplified to a three-colour dithered backdrop layer (12 + 1 + 3 = 16). Null (the photo is
 * drawn whole, as before) without a detected subject, or when it holds a sizeable person the
 * matte did not take: the backdrop layer alone, a coarse two-cell mosaic, is cruder than that.
 */
async function gameScene(work: RawImage, lab: Float32Array, cols: number, rows: number) {
  const about: { label?: string } = {};
  const subject = await subjectCells(work, cols, rows, about);
  if (!subject || subject === "person") return null;
  // The colours shared by the area each layer covers: 3 to 6 for the backdrop, the rest of the
  // 15 (the outline is the 16th) for the sprite.
  let area = 0;
  for (const v of subject) area += v;
  const back = Math.max(3, Math.min(6, Math.round((COLOURS - 1) * (1 - area / subject.length))));
  const out = drawBackdrop(lab, cols, rows, subject, back);
  const drawn = drawSprite(lab, cols, rows, subject, COLOURS - 1 - back);
  // Flat cells: two-cell specks of fur or grain join the cluster around them.
  const idx = smoothSpecks(
    drawn.idx,
    cols,
    rows,
    Uint8Array.from(subject, (v) => 1 - v),
  );
  const rgb = drawn.rgb;
  for (let y = 0; y < rows; y++)
    for (let x = 0; x < cols; x++) {
      const i = y * cols + x;
      if (subject[i]) out.set(rgb.subarray(idx[i]! * 3, idx[i]! * 3 + 3), i * 3);
      else if (
        (x > 0 && subject[i - 1]) ||
        (x < cols - 1 && subject[i + 1]) ||
        (y > 0 && subject[i - cols]) ||
        (y < rows - 1 && subject[i + cols])
      )
        out.set(OUTLINE, i * 3);
    }
  // An animal's eyes: a dark pupil and a one-cell shine where the photo has a catch-light.
  if (ANIMALS.has(about.label ?? "")) {
    let light = 0;
    for (let j = 1; j < rgb.length / 3; j++) if (lum(rgb, j) > lum(rgb, light)) light = j;
    drawEyes(
      out,
      lab,
      cols,
      rows,
      subject,
      findShines(work, cols, rows, subject),
      rgb.subarray(light * 3, light * 3 + 3),
      OUTLINE,
    );
  }
  return out;
}

/** A colour's rough luminance (for picking the lightest of a palette). */
const lum = (rgb: Uint8Array, j: number) =>
  0.2126 * rgb[j * 3]! + 0.7152 * rgb[j * 3 + 1]! + 0.0722 * rgb[j * 3 + 2]!;

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const bytes = firstImage(req);
  const work = await decodeRaw(bytes, { channels: 3, flatten: true, maxSide: GRID_LONG_SIDE * 4 });
  const scale = GRID_LONG_SIDE / Math.max(work.width, work.height);
  const cols = Math.max(1, Math.round(work.width * scale));
  const rows = Math.max(1, Math.round(work.height * scale));
  const n = cols * rows;
  // A small median first: an old print's scratches and dust would become lines and specks of cells.
  const grid = await transformRaw(work, (img) =>
    img.median(3).resize(cols, rows, { fit: "fill", kernel: "mitchell" }),
  );
  const lab = labOf(grid.data, n);
  const found = await personCells(work, cols, rows);

  // A colour photo without a person (a pet, an object, a landscape): a 16-bit game screen.
  if (!found && !printTone(lab, n)) {
    const scene = await gameScene(work, lab, cols, rows);
    if (scene) return encodePng(upscaleCells(scene, cols, rows, TARGET_LONG_SIDE));
  }

  if (!found) {
    // No clear person: the whole photo as a 16-bit scene in 16 colours of its own; a print's
    // faces (a group the matte cannot find on a tarnished plate) hand-coloured even so.
    const { idx, match, rgb, monochrome, faceLab } = drawCells(lab, n, COLOURS);
    const cleaned = cleanLoneCells(idx, cols, rows, match);
    const scene = paint(monochrome ? smoothSpecks(cleaned, cols, rows) : cleaned, rgb);
    if (monochrome) {
      const { big, sx, sy, sure } = await findFaces(bytes, cols, rows);
      const drawn = drawFaces(scene, faceLab, cols, rows, sure, sx, sy, null, big, {
        monoSkinHue: PRINT_SKIN_HUE,
      });
      handColour(
        scene,
        drawn,
        Array.from({ length: n }, (_, i) => i),
        COLOURS,
      );
    }
    return encodePng(upscaleCells(scene, cols, rows, TARGET_LONG_SIDE));
  }

  const { big, sx, sy, sure } = await findFaces(bytes, cols, rows);
  const person = keepFigure(
    trimSpurs(found, cols, rows),
    cols,
    rows,
    sure.map((f) => faceCell(f, sx, sy, cols, rows)),
  );
  const faces = sure.filter((f) => person[faceCell(f, sx, sy, cols, rows)]);

  // The sprite: the person's own colours, lone cells cleaned inside the silhouette only.
  const { idx, match, rgb, monochrome, warm, faceLab } = drawCells(lab, n, SPRITE_COLOURS, person);
  const backdrop = person.map((v) => (v ? 0 : 1));
  const cleaned = cleanLoneCells(idx, cols, rows, match, { ignore: backdrop });
  const sprite = paint(monochrome ? smoothSpecks(cleaned, cols, rows, backdrop) : cleaned, rgb);
  // Every face drawn as a pixel artist draws one at this size: a skin ramp of its own colour
  // and its features from the face mesh. On a b/w or toned print skin cannot be told from a
  // white dress by colour: only the face itself takes the skin ramp there, hand-coloured in a
  // warm peach (as a colourist tinted such prints) instead of the print's grey or brown.
  const drawn = drawFaces(
    sprite,
    faceLab,
    cols,
    rows,
    faces,
    sx,
    sy,
    monochrome ? null : person,
    big,
    monochrome ? { monoSkinHue: PRINT_SKIN_HUE } : {},
  );
  // The sprite's colours back down to its share of the 16: a print keeps its ramp and its
  // faces share what is left; a colour sprite's most alike colours merged.
  const cellsOf: number[] = [];
  for (let i = 0; i < n; i++) if (person[i]) cellsOf.push(i);
  if (monochrome) {
    // Session 11: a neutral print's pale hair hand-coloured too (drawn in the cool ramp's
    // blue-greys a fair-haired child read as a grey-haired old man); one slot of the faces'.
    const hair = warm ? [] : paleHair(sprite, drawn, person, faces, sx, sy, cols, rows);
    handColour(sprite, drawn, cellsOf, SPRITE_COLOURS - (hair.length ? 1 : 0));
    tintHair(sprite, hair);
  } else {
    const packed = new Uint8Array(cellsOf.length * 3);
    cellsOf.forEach((i, j) => packed.set(sprite.subarray(i * 3, i * 3 + 3), j * 3));
    limitColours(
      packed,
      cellsOf.length,
      SPRITE_COLOURS,
      Uint8Array.from(cellsOf, (i) => drawn[i]!),
    );
    cellsOf.forEach((i, j) => sprite.set(packed.subarray(j * 3, j * 3 + 3), i * 3));
  }

  const out = Uint8Array.from(sprite);
  const put = (i: number, c: Uint8Array, j: number) => {
    out[i * 3] = c[j * 3]!;
    out[i * 3 + 1] = c[j * 3 + 1]!;
    out[i * 3 + 2] = c[j * 3 + 2]!;
  };
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
      if (touches) put(i, OUTLINE, 0);
      else {
        // Three bands with a one-row checker between them, as 16-bit skies were drawn.
        const t = (y / rows) * 3;
        const band = Math.min(2, Math.floor(t));
        const f = t - band;
        const next = Math.min(2, band + 1);
        const dither = f > 0.88 && band < 2 && (x + y) % 2 === 0;
        put(i, SKY, dither ? next : band);
      }
    }
  return encodePng(upscaleCells(out, cols, rows, TARGET_LONG_SIDE));
}
