import sharp from "sharp";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { OUTPAINT_AMOUNT, OUTPAINT_MAX_SIDE, outpaintSize } from "@/core/catalogue-constants";
import { decodeRaw, encodePng, firstImage, type EffectOutput } from "../../shared/image-io";
import { mulberry32 } from "../../shared/random";
import { textProbability } from "../../vision/text-detector";
import { personMatte } from "../../vision/human";

/**
 * Image Outpainting: extends the chosen edges with a calm continuation of the photo's border,
 * never with copies of it. The new area is synthesised from statistics of the border region:
 *  1. the border's profile (the mean of a few lines next to each extended edge) continued
 *     outward and blurred along the edge more the further out it is, like an out-of-focus
 *     background; sides first, then top and bottom across the whole width (corners included);
 *  2. a seeded multi-octave grain whose strength follows the border's own fine detail
 *     (continued outward the same way) and fades with distance.
 * Text (the text detector) is left out of both, so a credit or a logo name at the edge is not
 * smeared outward; a plain dark or white scan/plate border on an extended edge is detected
 * and left out of the statistics, so it is not continued as a band (it stays in the photo).
 * Above the photo, a person (the person matte) is left out of the top border's profile: what
 * continues upward from a head is the background beside it, not a plume of hair. Nothing is
 * copied, so no face, logo, object or piece of clothing can appear twice. Every one of the
 * photo's pixels stays exactly as it was; the seam is blended on the new side only.
 */

export type Edge = "top" | "bottom" | "left" | "right";
const ALL_EDGES: readonly Edge[] = ["top", "bottom", "left", "right"];

/** Long side of the coarse canvas the colour continuation is computed on. */
const COARSE_LONG = 384;
/** Text probability (0..255) above which a pixel is text. */
const TEXT_THRESHOLD = 110;
/** Per-pixel detail is clamped here (a strong outline is not texture). */
const DETAIL_CLAMP = 36;
/** The grain at the far side of the extension keeps this share of its strength at the border. */
const FAR_GRAIN = 0.75;
/** Blur along the edge grows by this many cells per cell of distance from the photo. */
const SPREAD = 0.5;
/** Grain strength relative to the border's own fine detail. */
const GRAIN = 1;
/** A plain border band is at most this share of the photo's side. */
const MAX_FRAME = 0.08;
/** A coarse cell is "person" (left out of the top profile) above this share of matte pixels. */
const PERSON_CELL = 0.25;
/** The top profile keeps the person in when less than this share of the edge is background. */
const MIN_BACKGROUND = 0.15;

/** Pixels added on each edge: `amount` of the photo's width (left/right) or height (top/bottom). */
export function extension(width: number, height: number, edges: readonly Edge[], amount: number) {
  return {
    top: edges.includes("top") ? Math.round(height * amount) : 0,
    bottom: edges.includes("bottom") ? Math.round(height * amount) : 0,
    left: edges.includes("left") ? Math.round(width * amount) : 0,
    right: edges.includes("right") ? Math.round(width * amount) : 0,
  };
}
type Extension = ReturnType<typeof extension>;

function parseOptions(options: Record<string, unknown>): { edges: Edge[]; amount: number } {
  const raw = Array.isArray(options.edges) ? options.edges : ALL_EDGES;
  const edges = ALL_EDGES.filter((e) => raw.includes(e));
  if (edges.length === 0) throw new EngineError("Choose at least one edge to extend.");
  const amount =
    typeof options.amount === "number" && Number.isFinite(options.amount) ? options.amount : OUTPAINT_AMOUNT;
  if (amount <= 0 || amount > 1) throw new EngineError("The extension amount must be between 5 % and 100 %.");
  return { edges, amount };
}

/** The part of the output that keeps the photo's pixels: [x0, x1) x [y0, y1). */
interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

const lumaAt = (d: Uint8Array | Buffer, i: number) => 0.299 * d[i]! + 0.587 * d[i + 1]! + 0.114 * d[i + 2]!;

/**
 * Width of a plain border band (a black scan edge, a white mat) along one edge of the photo:
 * the run of lines from the edge that are nearly uniform and much darker (or brighter) than
 * the photo a little further in, plus a few lines for the soft transition. 0 when there is none.
 */
export function frameBand(data: Uint8Array | Buffer, W: number, H: number, edge: Edge): number {
  const horizontal = edge === "left" || edge === "right";
  const lines = horizontal ? W : H;
  const across = horizontal ? H : W;
  const lineStats = (k: number) => {
    const line = edge === "right" || edge === "bottom" ? lines - 1 - k : k;
    const lo = Math.floor(across * 0.05);
    const hi = Math.ceil(across * 0.95);
    const step = Math.max(1, Math.floor((hi - lo) / 400));
    let s = 0;
    let s2 = 0;
    let n = 0;
    for (let a = lo; a < hi; a += step) {
      const i = (horizontal ? a * W + line : line * W + a) * 3;
      const v = lumaAt(data, i);
      s += v;
      s2 += v * v;
      n++;
    }
    const mean = s / n;
    return { mean, std: Math.sqrt(Math.max(0, s2 / n - mean * mean)) };
  };
  const maxBand = Math.floor(lines * MAX_FRAME);
  // The photo a little further in: the median line mean between 15 % and 30 % of the side.
  const inner: number[] = [];
  for (
    let k = Math.floor(lines * 0.15);
    k < Math.floor(lines * 0.3);
    k += Math.max(1, Math.floor(lines / 200))
  )
    inner.push(lineStats(k).mean);
  if (!inner.length) return 0;
  inner.sort((a, b) => a - b);
  const ref = inner[inner.length >> 1]!;
  let band = 0;
  while (band < maxBand) {
    const { mean, std } = lineStats(band);
    // A plain band, or (within the first 1.5 % of the side) a thin dark or bright edge line.
    const plain =
      (std < 12 && ((mean < 45 && ref - mean > 40) || (mean > 215 && mean - ref > 40))) ||
      (band < lines * 0.015 && std < 40 && Math.abs(mean - ref) > 45);
    if (!plain) break;
    band++;
  }
  // A run that does not end within MAX_FRAME is the picture (a clear sky), not a frame.
  if (band < 2 || band >= maxBand) return 0;
  // A frame ends along the whole edge; a sky that ends only where a head rises into it goes on
  // beside the head: if most of the line just past the run is still the band's colour, the
  // "band" is the picture.
  const bandMean = lineStats(Math.floor(band / 2)).mean;
  const past = Math.min(lines - 1, band + Math.max(2, Math.round(lines * 0.01)));
  {
    const line = edge === "right" || edge === "bottom" ? lines - 1 - past : past;
    let same = 0;
    let n = 0;
    for (let a = 0; a < across; a += Math.max(1, Math.floor(across / 400)), n++) {
      const i = (horizontal ? a * W + line : line * W + a) * 3;
      if (Math.abs(lumaAt(data, i) - bandMean) < 25) same++;
    }
    if (same > n * 0.5) return 0;
  }
  return Math.min(maxBand, band + Math.max(3, Math.round(lines * 0.012)));
}

/** Integer hash of a lattice point, as a value in [-1, 1]. */
function hash(x: number, y: number, seed: number): number {
  let h = Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1) ^ seed;
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2147483647.5 - 1;
}

/** Bilinear value noise at lattice spacing `s`. */
function valueNoise(x: number, y: number, s: number, seed: number): number {
  const u = x / s;
  const v = y / s;
  const i = Math.floor(u);
  const j = Math.floor(v);
  const a = u - i;
  const b = v - j;
  const h00 = hash(i, j, seed);
  const h10 = hash(i + 1, j, seed);
  const h01 = hash(i, j + 1, seed);
  const h11 = hash(i + 1, j + 1, seed);
  return (h00 * (1 - a) + h10 * a) * (1 - b) + (h01 * (1 - a) + h11 * a) * b;
}

/** The grain: fine, medium and coarse octaves (spacings scale with the output's size). */
function makeGrain(seed: number, long: number) {
  const s2 = Math.max(2, long / 700);
  const s3 = s2 * 4;
  const k1 = seed ^ 0x5bd1e995;
  const k2 = seed ^ 0x1b873593;
  const k3 = seed ^ 0x68e31da4;
  const at = (x: number, y: number) =>
    0.3 * hash(x, y, k1) + 0.8 * valueNoise(x, y, s2, k2) + 0.7 * valueNoise(x, y, s3, k3);
  // Normalise so its mean absolute neighbour difference is 1 (the unit the detail map uses).
  let d = 0;
  let n = 0;
  for (let y = 1; y < 128; y++)
    for (let x = 1; x < 128; x++) {
      const v = at(x, y);
      d += (Math.abs(v - at(x - 1, y)) + Math.abs(v - at(x, y - 1))) / 2;
      n++;
    }
  const norm = n / d;
  return (x: number, y: number) => at(x, y) * norm;
}

/**
 * Push-pull fill: `val` (c channels) with weight `wt` in [0, 1] on a w x h grid; pixels with
 * weight below 1 are completed from ever coarser averages of the known ones (bilinear), so a
 * hole is filled smoothly, more so the further it is from what is known.
 */
function pushPull(val: Float32Array, wt: Float32Array, w: number, h: number, c: number): void {
  if (w <= 1 && h <= 1) return;
  const w2 = Math.ceil(w / 2);
  const h2 = Math.ceil(h / 2);
  const v2 = new Float32Array(w2 * h2 * c);
  const t2 = new Float32Array(w2 * h2);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const wi = wt[i]!;
      if (wi <= 0) continue;
      const j = (y >> 1) * w2 + (x >> 1);
      t2[j] = t2[j]! + wi;
      for (let k = 0; k < c; k++) v2[j * c + k] = v2[j * c + k]! + wi * val[i * c + k]!;
    }
  }
  for (let j = 0; j < w2 * h2; j++) {
    const t = t2[j]!;
    if (t > 0) for (let k = 0; k < c; k++) v2[j * c + k] = v2[j * c + k]! / t;
    t2[j] = Math.min(1, t);
  }
  pushPull(v2, t2, w2, h2, c);
  for (let y = 0; y < h; y++) {
    const v = Math.max(0, Math.min(h2 - 1, (y + 0.5) / 2 - 0.5));
    const j0 = Math.floor(v);
    const j1 = Math.min(h2 - 1, j0 + 1);
    const b = v - j0;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const wi = wt[i]!;
      if (wi >= 1) continue;
      const u = Math.max(0, Math.min(w2 - 1, (x + 0.5) / 2 - 0.5));
      const i0 = Math.floor(u);
      const i1 = Math.min(w2 - 1, i0 + 1);
      const a = u - i0;
      for (let k = 0; k < c; k++) {
        const up =
          (v2[(j0 * w2 + i0) * c + k]! * (1 - a) + v2[(j0 * w2 + i1) * c + k]! * a) * (1 - b) +
          (v2[(j1 * w2 + i0) * c + k]! * (1 - a) + v2[(j1 * w2 + i1) * c + k]! * a) * b;
        val[i * c + k] = wi * val[i * c + k]! + (1 - wi) * up;
      }
      wt[i] = 1;
    }
  }
}

/** Gaussian blur (sigma in cells) of `n` values of `c` channels, clamped at the ends. */
function blur1d(src: Float32Array, n: number, c: number, sigma: number): Float32Array {
  if (sigma < 0.3) return Float32Array.from(src);
  const r = Math.ceil(sigma * 3);
  const kern = new Float32Array(2 * r + 1);
  for (let t = -r; t <= r; t++) kern[t + r] = Math.exp((-t * t) / (2 * sigma * sigma));
  const out = new Float32Array(n * c);
  for (let i = 0; i < n; i++) {
    let ws = 0;
    for (let t = -r; t <= r; t++) {
      const j = Math.max(0, Math.min(n - 1, i + t));
      const w = kern[t + r]!;
      ws += w;
      for (let k = 0; k < c; k++) out[i * c + k] = out[i * c + k]! + w * src[j * c + k]!;
    }
    for (let k = 0; k < c; k++) out[i * c + k] = out[i * c + k]! / ws;
  }
  return out;
}

/**
 * Continues the known cells [kx0, kx1) x [ky0, ky1) outward: sides first (over the known
 * rows), then top and bottom across the whole width. Each band starts from the border's
 * profile (the mean of a few lines next to it, text and gaps filled from along the edge) and
 * is blurred along the edge more the further out it is, so a subject touching the border
 * spreads into a calm out-of-focus continuation instead of being repeated.
 */
function continueOutward(
  val: Float32Array,
  wt: Float32Array,
  cw: number,
  ch: number,
  C: number,
  kx0: number,
  ky0: number,
  kx1: number,
  ky1: number,
  skipTop?: Uint8Array,
): void {
  const side = (
    n: number,
    depth: number,
    known: number,
    at: (p: number, t: number) => number,
    skip?: Uint8Array,
  ) => {
    // at(p, t): cell index of position p along the edge, t lines out (t < 0: inside).
    if (depth <= 0 || n <= 0) return;
    const lines = Math.max(1, Math.min(known, Math.round(known * 0.06)));
    // Cells in `skip` (a person under the top edge) give nothing, unless almost all of the
    // edge is person: then there is no background to continue and the person is used.
    let useSkip = false;
    if (skip) {
      let free = 0;
      for (let p = 0; p < n; p++) {
        let clear = false;
        for (let t = 1; t <= lines && !clear; t++) clear = wt[at(p, -t)]! > 0 && !skip[at(p, -t)];
        if (clear) free++;
      }
      useSkip = free >= n * MIN_BACKGROUND;
    }
    const prof = new Float32Array(n * C);
    const pw = new Float32Array(n);
    for (let p = 0; p < n; p++) {
      let ws = 0;
      for (let t = 1; t <= lines; t++) {
        const i = at(p, -t);
        const w = useSkip && skip![i] ? 0 : wt[i]!;
        if (w <= 0) continue;
        ws += w;
        for (let k = 0; k < C; k++) prof[p * C + k] = prof[p * C + k]! + w * val[i * C + k]!;
      }
      if (ws > 0) for (let k = 0; k < C; k++) prof[p * C + k] = prof[p * C + k]! / ws;
      pw[p] = Math.min(1, ws);
    }
    pushPull(prof, pw, n, 1, C);
    // Detail (grain strength) varies slowly along the edge: one lock of hair is not a texture.
    const wide = blur1d(prof, n, C, Math.max(2, n * 0.08));
    for (let p = 0; p < n; p++) prof[p * C + 3] = Math.min(prof[p * C + 3]!, wide[p * C + 3]!);
    let row = blur1d(prof, n, C, 1.5);
    let sigma = 1.5;
    for (let t = 0; t < depth; t++) {
      const target = 1.5 + SPREAD * (t + 1);
      row = blur1d(row, n, C, Math.sqrt(target * target - sigma * sigma));
      sigma = target;
      for (let p = 0; p < n; p++) {
        const i = at(p, t);
        for (let k = 0; k < C; k++) val[i * C + k] = row[p * C + k]!;
        wt[i] = 1;
      }
    }
  };
  const kh = ky1 - ky0;
  side(kh, kx0, kx1 - kx0, (p, t) => (ky0 + p) * cw + kx0 - 1 - t);
  side(kh, cw - kx1, kx1 - kx0, (p, t) => (ky0 + p) * cw + kx1 + t);
  side(cw, ky0, ky1 - ky0, (p, t) => (ky0 - 1 - t) * cw + p, skipTop);
  side(cw, ch - ky1, ky1 - ky0, (p, t) => (ky1 + t) * cw + p);
  // Anything left (cells on the known rectangle's rim), from its surroundings.
  pushPull(val, wt, cw, ch, C);
}

/** Output size for a photo of width x height with the chosen edges. */
function outputSize(width: number, height: number, ext: Extension) {
  return { w: width + ext.left + ext.right, h: height + ext.top + ext.bottom };
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const { edges, amount } = parseOptions(req.options);
  let src = await decodeRaw(firstImage(req), { channels: 3, flatten: true, maxSide: OUTPAINT_MAX_SIDE });

  // Keep the photo's resolution while the result fits OUTPAINT_MAX_SIDE; past it, scale the
  // photo so the whole result does (the effect page shows the size before Create).
  const fit = outpaintSize(src.width, src.height, edges, amount);
  if (fit.scaled) {
    const data = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
      .resize(fit.photoWidth, fit.photoHeight, { fit: "fill" })
      .raw()
      .toBuffer();
    src = { data, width: fit.photoWidth, height: fit.photoHeight, channels: 3 };
  }
  const ext = extension(src.width, src.height, edges, amount);
  const size = outputSize(src.width, src.height, ext);
  const W = src.width;
  const H = src.height;
  if (Math.min(W, H) < 16) throw new EngineError("The image is too small to extend.");
  const data = src.data;
  const outW = size.w;
  const outH = size.h;

  // The photo is kept whole, pixel for pixel (`photo`). A plain border band on an extended
  // edge (a black scan edge, a white mat) stays in it but gives nothing to the statistics
  // (`rect`), so the extension does not continue it as a band.
  const bands = {
    left: ext.left > 0 ? frameBand(data, W, H, "left") : 0,
    top: ext.top > 0 ? frameBand(data, W, H, "top") : 0,
    right: ext.right > 0 ? frameBand(data, W, H, "right") : 0,
    bottom: ext.bottom > 0 ? frameBand(data, W, H, "bottom") : 0,
  };
  const photoRect: Rect = { x0: ext.left, y0: ext.top, x1: ext.left + W, y1: ext.top + H };
  const rect: Rect = {
    x0: photoRect.x0 + bands.left,
    y0: photoRect.y0 + bands.top,
    x1: photoRect.x1 - bands.right,
    y1: photoRect.y1 - bands.bottom,
  };

  // Text near the edges is not continued (a credit, a logo's name).
  const text = await textProbability(data, W, H);
  // A person is not continued upward (hair rising into the new sky): only for the top edge.
  const person = ext.top > 0 ? (await personMatte({ data, width: W, height: H })).alpha : null;

  // Coarse canvas over the whole output: per cell, the mean colour and detail of the kept,
  // non-text photo pixels in it, and the share of the cell they cover.
  const k = Math.max(1, Math.max(outW, outH) / COARSE_LONG);
  const cw = Math.max(2, Math.round(outW / k));
  const ch = Math.max(2, Math.round(outH / k));
  const sx = outW / cw;
  const sy = outH / ch;
  const C = 4; // r, g, b, detail
  const val = new Float32Array(cw * ch * C);
  const wt = new Float32Array(cw * ch);
  const textCells = new Float32Array(cw * ch);
  const personCells = new Float32Array(cw * ch);
  const cellOfX = new Int32Array(outW);
  for (let x = 0; x < outW; x++) cellOfX[x] = Math.min(cw - 1, Math.floor(x / sx));
  for (let y = rect.y0; y < rect.y1; y++) {
    const py = y - ext.top;
    const cy = Math.min(ch - 1, Math.floor(y / sy));
    for (let x = rect.x0; x < rect.x1; x++) {
      const px = x - ext.left;
      const p = py * W + px;
      const cell = cy * cw + cellOfX[x]!;
      if (person && person[p]! > 127) personCells[cell] = personCells[cell]! + 1;
      if (text[p]! > TEXT_THRESHOLD) {
        textCells[cell] = textCells[cell]! + 1;
        continue;
      }
      const i = p * 3;
      const l = lumaAt(data, i);
      const lx = px > 0 ? lumaAt(data, i - 3) : l;
      const ly = py > 0 ? lumaAt(data, i - W * 3) : l;
      const detail = Math.min(DETAIL_CLAMP, (Math.abs(l - lx) + Math.abs(l - ly)) / 2);
      wt[cell] = wt[cell]! + 1;
      const o = cell * C;
      val[o] = val[o]! + data[i]!;
      val[o + 1] = val[o + 1]! + data[i + 1]!;
      val[o + 2] = val[o + 2]! + data[i + 2]!;
      val[o + 3] = val[o + 3]! + detail;
    }
  }
  const cellArea = sx * sy;
  // Cells with text, grown by two cells, give nothing (their surroundings fill them).
  const noText = new Uint8Array(cw * ch).fill(1);
  for (let cy = 0; cy < ch; cy++)
    for (let cx = 0; cx < cw; cx++) {
      if (textCells[cy * cw + cx]! < cellArea * 0.02) continue;
      for (let dy = -2; dy <= 2; dy++)
        for (let dx = -2; dx <= 2; dx++) {
          const yy = cy + dy;
          const xx = cx + dx;
          if (yy >= 0 && yy < ch && xx >= 0 && xx < cw) noText[yy * cw + xx] = 0;
        }
    }
  for (let i = 0; i < cw * ch; i++) {
    const n = wt[i]!;
    if (n > 0 && noText[i]) for (let c = 0; c < C; c++) val[i * C + c] = val[i * C + c]! / n;
    else for (let c = 0; c < C; c++) val[i * C + c] = 0;
    wt[i] = noText[i] ? Math.min(1, n / cellArea) : 0;
  }
  // Cells wholly inside the kept photo are known; the rest is continued from them outward.
  const kx0 = Math.min(cw - 1, Math.ceil(rect.x0 / sx));
  const ky0 = Math.min(ch - 1, Math.ceil(rect.y0 / sy));
  const kx1 = Math.max(kx0 + 1, Math.floor(rect.x1 / sx));
  const ky1 = Math.max(ky0 + 1, Math.floor(rect.y1 / sy));
  let skipTop: Uint8Array | undefined;
  if (person) {
    skipTop = new Uint8Array(cw * ch);
    for (let i = 0; i < cw * ch; i++) skipTop[i] = personCells[i]! > cellArea * PERSON_CELL ? 1 : 0;
  }
  continueOutward(val, wt, cw, ch, C, kx0, ky0, kx1, ky1, skipTop);

  // Full resolution: the photo inside the rect; outside, the continued colour plus grain.
  const grain = makeGrain(req.seed >>> 0, Math.max(outW, outH));
  const rng = mulberry32(req.seed);
  const phase = (rng() % 4096) + 1; // shifts the noise lattice per seed as well
  const far = Math.max(1, photoRect.x0, photoRect.y0, outW - photoRect.x1, outH - photoRect.y1);
  const out = new Float32Array(outW * outH * 3);
  const isNew = new Uint8Array(outW * outH);
  const colI0 = new Int32Array(outW);
  const colI1 = new Int32Array(outW);
  const colA = new Float32Array(outW);
  for (let x = 0; x < outW; x++) {
    const u = Math.max(0, Math.min(cw - 1, (x + 0.5) / sx - 0.5));
    colI0[x] = Math.floor(u);
    colI1[x] = Math.min(cw - 1, colI0[x]! + 1);
    colA[x] = u - colI0[x]!;
  }
  const f = new Float32Array(C);
  for (let y = 0; y < outH; y++) {
    const v = Math.max(0, Math.min(ch - 1, (y + 0.5) / sy - 0.5));
    const j0 = Math.floor(v);
    const j1 = Math.min(ch - 1, j0 + 1);
    const b = v - j0;
    const inRows = y >= photoRect.y0 && y < photoRect.y1;
    const dy = y < photoRect.y0 ? photoRect.y0 - y : y >= photoRect.y1 ? y - photoRect.y1 + 1 : 0;
    for (let x = 0; x < outW; x++) {
      const o = (y * outW + x) * 3;
      if (inRows && x >= photoRect.x0 && x < photoRect.x1) {
        const s = ((y - ext.top) * W + x - ext.left) * 3;
        out[o] = data[s]!;
        out[o + 1] = data[s + 1]!;
        out[o + 2] = data[s + 2]!;
        continue;
      }
      isNew[y * outW + x] = 1;
      const a = colA[x]!;
      const q00 = (j0 * cw + colI0[x]!) * C;
      const q10 = (j0 * cw + colI1[x]!) * C;
      const q01 = (j1 * cw + colI0[x]!) * C;
      const q11 = (j1 * cw + colI1[x]!) * C;
      for (let c = 0; c < C; c++)
        f[c] =
          (val[q00 + c]! * (1 - a) + val[q10 + c]! * a) * (1 - b) +
          (val[q01 + c]! * (1 - a) + val[q11 + c]! * a) * b;
      const dx = x < photoRect.x0 ? photoRect.x0 - x : x >= photoRect.x1 ? x - photoRect.x1 + 1 : 0;
      const fade = 1 - (1 - FAR_GRAIN) * Math.min(1, Math.max(dx, dy) / far);
      const g = grain(x + phase, y) * f[3]! * fade * GRAIN;
      const l = 0.299 * f[0]! + 0.587 * f[1]! + 0.114 * f[2]!;
      const m = g / (l + 12);
      out[o] = f[0]! + (f[0]! + 12) * m;
      out[o + 1] = f[1]! + (f[1]! + 12) * m;
      out[o + 2] = f[2]! + (f[2]! + 12) * m;
    }
  }

  // Edges with a plain band are not blended toward it (the band would be dragged outward).
  const personOnTop = person
    ? (x: number) => {
        const px = x - ext.left;
        if (px < 0 || px >= W) return false;
        for (let y = 0; y < 3; y++) if (person[y * W + px]! > 127) return true;
        return false;
      }
    : undefined;
  blendSeams(out, isNew, outW, outH, photoRect, Math.max(sx, sy), bands, personOnTop);

  const bytes = Buffer.allocUnsafe(outW * outH * 3);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.max(0, Math.min(255, out[i]! + 0.5));
  return encodePng({ data: bytes, width: outW, height: outH, channels: 3 });
}

/**
 * Seam blending: along each border between the kept photo (or an earlier band) and a new
 * band, the colour difference across the border, smoothed along it, is added to the new band
 * and fades with distance. The photo's pixels never change.
 */
function blendSeams(
  out: Float32Array,
  isNew: Uint8Array,
  outW: number,
  outH: number,
  rect: Rect,
  scale: number,
  bands: Record<Edge, number>,
  personOnTop?: (x: number) => boolean,
): void {
  const strip = 3;
  const radius = Math.max(3, Math.round(scale * 2));
  const decayOf = (band: number) => Math.max(3, Math.min(band / 2, 4 * scale + 6));

  /**
   * One border. `along` positions, each with an inside pixel run and an outside (new) run,
   * addressed through `at(pos, t)`: t < 0 inside (t = -1 touching the border), t >= 0 outside.
   */
  const fix = (
    n: number,
    band: number,
    at: (pos: number, t: number) => number,
    keepOut?: (pos: number) => boolean,
  ) => {
    if (band <= 0 || n <= 0) return;
    const delta = new Float32Array(n * 3);
    for (let p = 0; p < n; p++) {
      if (keepOut?.(p)) continue; // a head against the new sky: no pull toward the hair
      for (let ch = 0; ch < 3; ch++) {
        let inside = 0;
        let outside = 0;
        for (let t = 0; t < strip; t++) {
          inside += out[at(p, -1 - t) * 3 + ch]!;
          outside += out[at(p, Math.min(band - 1, t)) * 3 + ch]!;
        }
        delta[p * 3 + ch] = (inside - outside) / strip;
      }
    }
    // Smooth along the border (box filter) so only the low-frequency colour shift is corrected.
    const sm = new Float32Array(n * 3);
    for (let p = 0; p < n; p++) {
      const lo = Math.max(0, p - radius);
      const hi = Math.min(n - 1, p + radius);
      for (let ch = 0; ch < 3; ch++) {
        let s = 0;
        for (let q = lo; q <= hi; q++) s += delta[q * 3 + ch]!;
        sm[p * 3 + ch] = s / (hi - lo + 1);
      }
    }
    const decay = decayOf(band);
    for (let t = 0; t < band; t++) {
      const wgt = Math.exp(-t / decay);
      if (wgt < 0.01) break;
      for (let p = 0; p < n; p++) {
        const i = at(p, t);
        if (!isNew[i]) continue;
        out[i * 3] = out[i * 3]! + sm[p * 3]! * wgt;
        out[i * 3 + 1] = out[i * 3 + 1]! + sm[p * 3 + 1]! * wgt;
        out[i * 3 + 2] = out[i * 3 + 2]! + sm[p * 3 + 2]! * wgt;
      }
    }
  };
  const { x0, y0, x1, y1 } = rect;
  const rh = y1 - y0;
  // Sides: rows of the kept photo.
  if (!bands.left) fix(rh, x0, (p, t) => (y0 + p) * outW + x0 - 1 - t);
  if (!bands.right) fix(rh, outW - x1, (p, t) => (y0 + p) * outW + x1 + t);
  // Top and bottom: every column (the side bands are already blended).
  if (!bands.top) fix(outW, y0, (p, t) => (y0 - 1 - t) * outW + p, personOnTop);
  if (!bands.bottom) fix(outW, outH - y1, (p, t) => (y1 + t) * outW + p);
}
