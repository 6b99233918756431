/**
 * Opaque marks: text drawn at full opacity (a white credit line, a black proof number)
 * hides the photo behind it, so un-blending (overlay.ts) cannot bring it back. Where the
 * text detector sees text, the glyph pixels are those of one extreme colour (near white or
 * near black) that stand apart from the rest of the text region; they are inpainted.
 */
import { components } from "../../shared/components";
import { growMask } from "./morphology";
import { drawnText } from "./strokes";

const TEXT_THRESHOLD = 76; // text probability (0..255), as in overlay.ts
const REGION_REACH = 6; // px: the detector's map is a shrunk text kernel; glyphs reach past it
const WHITE = 235; // every channel at least this: white ink
const BLACK = 30; // every channel at most this: black ink
/** Glyphs cover between these shares of their text region... */
const INK_SHARE = [0.06, 0.6] as const;
/** ...with at least this many pixels... */
const MIN_INK = 60;
/** ...and the rest of the region at least this far away in luminance (ink stands apart). */
const MIN_CONTRAST = 70;
/** Channel limits for following a glyph from its seeds (looser than the seeds', but neutral). */
const LOOSE_WHITE = 215;
const LOOSE_BLACK = 50;
const LOOSE_TINT = 40;
/** How far past the detector's text region a glyph is followed through its own ink. */
const GLYPH_REACH = 32;
/** A region's glyphs may grow to this many times their seeds (tops and tails of letters)... */
const MAX_GROWTH = 4;
/** ...and at most this share of their outline (else, of an ink piece's) may touch more of the same ink... */
const MAX_LEAK = 0.05;
/** ...and pieces that do not hold at least this share of as many pixels as its seeds. */
const MIN_KEPT = 0.5;
/** Ink pieces smaller than this are specks, dots and accents: not measured as glyphs. */
const MIN_PIECE = 25;
/** Rim taken with the glyphs: anti-aliasing and JPEG ringing. */
const RIM = 2;

const luma = (rgb: Buffer, i: number) =>
  0.299 * rgb[i * 3]! + 0.587 * rgb[i * 3 + 1]! + 0.114 * rgb[i * 3 + 2]!;

/** The pixels to inpaint (with their rim), or null when no opaque text is found. */
export function findOpaqueText(
  rgb: Buffer,
  width: number,
  height: number,
  textProbability: Uint8Array,
): Uint8Array | null {
  const n = width * height;
  const text = new Uint8Array(n);
  for (let i = 0; i < n; i++) text[i] = textProbability[i]! > TEXT_THRESHOLD ? 1 : 0;
  const { labels, count } = components(growMask(text, width, height, REGION_REACH), width, height);
  if (!count) return null;
  // Per region: pixel count, white and black ink counts, and luminance sums.
  const size = new Uint32Array(count + 1);
  const ink = { white: new Uint32Array(count + 1), black: new Uint32Array(count + 1) };
  const lumaSum = new Float64Array(count + 1);
  const inkLuma = { white: new Float64Array(count + 1), black: new Float64Array(count + 1) };
  const kind = new Uint8Array(n); // 1 white, 2 black
  for (let i = 0; i < n; i++) {
    const l = labels[i]!;
    if (!l) continue;
    size[l]!++;
    const y = luma(rgb, i);
    lumaSum[l] = lumaSum[l]! + y;
    const lo = Math.min(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!);
    const hi = Math.max(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!);
    const colour = lo >= WHITE ? "white" : hi <= BLACK ? "black" : null;
    if (!colour) continue;
    kind[i] = colour === "white" ? 1 : 2;
    ink[colour][l]!++;
    inkLuma[colour][l] = inkLuma[colour][l]! + y;
  }
  // One ink per text line: the extreme colour that covers a glyph-like share of it and
  // stands furthest apart from the rest.
  const accept = { white: new Uint8Array(count + 1), black: new Uint8Array(count + 1) };
  let any = false;
  for (let l = 1; l <= count; l++) {
    let best: "white" | "black" | null = null;
    let bestContrast = MIN_CONTRAST;
    for (const colour of ["white", "black"] as const) {
      const k = ink[colour][l]!;
      const share = k / size[l]!;
      if (k < MIN_INK || share < INK_SHARE[0] || share > INK_SHARE[1]) continue;
      const inkMean = inkLuma[colour][l]! / k;
      const restMean = (lumaSum[l]! - inkLuma[colour][l]!) / (size[l]! - k);
      const contrast = Math.abs(inkMean - restMean);
      if (contrast >= bestContrast) [best, bestContrast] = [colour, contrast];
    }
    if (best) {
      accept[best][l] = 1;
      any = true;
    }
  }
  if (!any) return null;
  // Seeds: the accepted ink inside the regions. The detector's map covers the middle of a
  // line of text, so each glyph is then followed through pixels of its own ink, up to
  // GLYPH_REACH past the region (tops and tails of letters, a © beside the words).
  const glyphs = new Uint8Array(n);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) {
    const l = labels[i]!;
    if ((kind[i] === 1 && accept.white[l]) || (kind[i] === 2 && accept.black[l])) {
      glyphs[i] = 1;
      queue.push(i);
    }
  }
  const reach = growMask(text, width, height, GLYPH_REACH);
  // Growth accepts ink the JPEG has tinted a little (chroma is subsampled), but stays
  // neutral: skin and sky next to the text are too coloured to pass.
  const looseKind = (i: number) => {
    const lo = Math.min(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!);
    const hi = Math.max(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!);
    if (hi - lo > LOOSE_TINT) return 0;
    return lo >= LOOSE_WHITE ? 1 : hi <= LOOSE_BLACK ? 2 : 0;
  };
  // Each glyph pixel remembers its text region, to judge the region's glyphs as a whole.
  const owner = new Int32Array(n);
  for (const i of queue) owner[i] = labels[i]!;
  const seeds = new Uint32Array(count + 1);
  for (const i of queue) seeds[owner[i]!]!++;
  for (let head = 0; head < queue.length; head++) {
    const p = queue[head]!;
    const x = p % width;
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++) {
        if (x + dx < 0 || x + dx >= width) continue;
        const q = p + dy * width + dx;
        if (q < 0 || q >= n || glyphs[q] || !reach[q] || looseKind(q) !== kind[p]) continue;
        glyphs[q] = 1;
        kind[q] = kind[p]!; // the seed's ink, carried along
        owner[q] = owner[p]!;
        queue.push(q);
      }
  }
  // Glyphs end where the ink ends. Ink that runs on into the surroundings (white sky, a
  // black night) is the photo, not text drawn on it. A region whose outline leaks is judged
  // per ink piece: letters over the face are text; letters that cross a dark collar or a
  // night background merge with it, and of those only what lies on the detected line is
  // taken. A region loses its glyphs whole when its ink grew far past its seeds, or when its
  // pieces that stay apart from the photo's ink hold less than half as much as its seeds.
  const pieces = components(glyphs, width, height);
  const pieceEdge = new Uint32Array(pieces.count + 1);
  const pieceLeak = new Uint32Array(pieces.count + 1);
  const grown = new Uint32Array(count + 1);
  const edge = new Uint32Array(count + 1);
  const leak = new Uint32Array(count + 1);
  for (let p = 0; p < n; p++) {
    if (!glyphs[p]) continue;
    const l = owner[p]!;
    grown[l]!++;
    const k = pieces.labels[p]!;
    const x = p % width;
    for (const q of [x > 0 ? p - 1 : -1, x < width - 1 ? p + 1 : -1, p - width, p + width]) {
      if (q < 0 || q >= n || glyphs[q]) continue;
      pieceEdge[k]!++;
      edge[l]!++;
      if (looseKind(q) !== kind[p]) continue;
      pieceLeak[k]!++;
      leak[l]!++;
    }
  }
  const kept = new Uint32Array(count + 1);
  const merged = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    if (!glyphs[p]) continue;
    const k = pieces.labels[p]!;
    const l = owner[p]!;
    if (leak[l]! > edge[l]! * MAX_LEAK && pieceLeak[k]! > pieceEdge[k]! * MAX_LEAK) {
      // Merged with the photo's own ink: only what lies on the detected line is taken (the
      // letter; the dark photo around it there is filled from more of the same).
      if (!labels[p]) glyphs[p] = 0;
      merged[p] = 1;
    } else kept[l]!++;
  }
  const keep = new Uint8Array(count + 1);
  for (let l = 1; l <= count; l++)
    keep[l] =
      seeds[l]! > 0 && grown[l]! <= seeds[l]! * MAX_GROWTH && kept[l]! >= seeds[l]! * MIN_KEPT ? 1 : 0;
  for (let p = 0; p < n; p++) if (glyphs[p] && !keep[owner[p]!]) glyphs[p] = 0;
  // Drawn text is strokes of varied shapes; a row of a flag's stars or of buttons is not.
  // (Judged on the letters alone: what was cut out of the photo's own ink is no letter shape.)
  const letters = Uint8Array.from(glyphs, (v, i) => (v && !merged[i] ? 1 : 0));
  const drawn = drawnText(letters, owner, count, width, height, MIN_PIECE);
  for (let p = 0; p < n; p++) if (glyphs[p] && !drawn[owner[p]!]) glyphs[p] = 0;
  return glyphs.includes(1) ? growMask(glyphs, width, height, RIM) : null;
}
