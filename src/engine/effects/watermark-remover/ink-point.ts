/**
 * The ink of a found text line as a point, not a direction: a mark in ink K blended at
 * opacity a turns a photo pixel C into I = a·K + (1 − a)·C. The pixels inside the glyphs
 * (2 px clear of their blurred edge) are then the photo just outside them (3+ px clear)
 * shrunk towards K by (1 − a): the ratio of their spreads (inter-quartile, summed over the
 * channels) gives 1 − a, their medians K. A least-squares line through inside/outside pairs
 * was tried first and is biased towards a = 1 wherever the photo has texture at the pairs'
 * distance (a dandelion's fuzz): noise in the regressor flattens the slope; the spreads are not.
 * It needs the backdrop to vary along the line (wood and a saucer, grass and sky).
 *
 * With K and a known, every pixel near the line can be un-blended, C = (I − a·K) / (1 − a),
 * which needs no estimate of the photo behind it. Graphic marks in the same ink beside the
 * text (a logo) are the patches whose edge disappears when un-blended: their un-blended inside
 * matches the photo just outside them. A photo patch that merely could be un-blended (its
 * colour is reachable) gains an edge instead: un-blending changes its inside, not its outside.
 * (The same test finds a translucent ink over a backdrop it pushes another way, a red credit
 * over a dark red saucer, given its ink; there the glyphs found are too few and thin to fit it.)
 */
import { components } from "../../shared/components";
import { backgroundBehind } from "./background";
import { dilate, growMask } from "./morphology";
import { insideDistance } from "./strokes";
import { uniform } from "../../shared/random";

/** Binary opening by a (2r+1)² square. */
function openMask(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const inverse = new Uint8Array(mask.length);
  for (let i = 0; i < mask.length; i++) inverse[i] = mask[i] ? 0 : 1;
  const grownInverse = growMask(inverse, w, h, r);
  const eroded = new Uint8Array(mask.length);
  for (let i = 0; i < mask.length; i++) eroded[i] = grownInverse[i] ? 0 : 1;
  const out = growMask(eroded, w, h, r);
  for (let i = 0; i < mask.length; i++) out[i] = out[i]! & mask[i]!;
  return out;
}

export interface InkPoint {
  /** The ink's colour (RGB, 0..255). */
  ink: [number, number, number];
  /** Its opacity. */
  alpha: number;
}

/** Opacities that the fit may return; below, the slope is JPEG noise; above, un-blending is noise. */
const ALPHA_RANGE = [0.2, 0.97] as const;
/** The ink may lie this far outside the colour cube (JPEG, anti-aliasing). */
const INK_SLACK = 30;
/** Least edge pairs for a fit. */
const MIN_PAIRS = 60;

const DIRS = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
] as const;

/**
 * Pairs (inside, outside) across the edges of `glyphs`: a pixel `inDepth` px deep and the first
 * pixel along a row or column at least `outAway` px clear of the glyphs, within `maxStep`. Both
 * clear of the edge itself: anti-aliasing and JPEG's halved chroma blur a mark's colour 2-3 px
 * either side of it.
 */
function edgePairs(
  glyphs: Uint8Array,
  width: number,
  height: number,
  { inDepth, outAway, maxStep }: { inDepth: number; outAway: number; maxStep: number },
  limit: number,
): [number, number][] {
  const depth = insideDistance(glyphs, width, height);
  const outside = new Uint8Array(glyphs.length);
  for (let i = 0; i < glyphs.length; i++) outside[i] = glyphs[i] ? 0 : 1;
  const away = insideDistance(outside, width, height);
  const pairs: [number, number][] = [];
  for (let p = 0; p < glyphs.length && pairs.length < limit; p++) {
    if (depth[p] !== inDepth) continue;
    const x = p % width;
    const y = (p - x) / width;
    for (const [dx, dy] of DIRS) {
      for (let s = 1; s <= maxStep; s++) {
        const xx = x + dx * s;
        const yy = y + dy * s;
        if (xx < 0 || yy < 0 || xx >= width || yy >= height) break;
        const q = yy * width + xx;
        if (glyphs[q]) continue;
        if (away[q]! >= outAway) {
          pairs.push([p, q]);
          break;
        }
      }
    }
  }
  return pairs;
}

/** Edge pairs for the fit (glyphs found by their push: their rims are already left out). */
const FIT_PAIRS = { inDepth: 3, outAway: 4, maxStep: 9 };
/** Edge pairs for judging a patch (candidates include their blurred rims). */
const PATCH_PAIRS = { inDepth: 3, outAway: 4, maxStep: 9 };

/** Fits (K, a) to the edges of one line's glyphs; null when the edges do not agree on one ink. */
export function fitInkPoint(rgb: Buffer, glyphs: Uint8Array, width: number, height: number): InkPoint | null {
  const pairs = edgePairs(glyphs, width, height, FIT_PAIRS, 200_000);
  if (pairs.length < MIN_PAIRS) return null;
  // The glyphs' colours are the colours just outside them shrunk towards K by (1 − a): the
  // spread (inter-quartile, robust to a photo edge crossing the line) gives 1 − a, the medians K.
  let spreadIn = 0;
  let spreadOut = 0;
  const mid = [0, 0, 0, 0, 0, 0];
  for (let k = 0; k < 3; k++) {
    const inner = Float32Array.from(pairs, ([p]) => rgb[p * 3 + k]!).sort();
    const outer = Float32Array.from(pairs, ([, q]) => rgb[q * 3 + k]!).sort();
    const at = (a: Float32Array, f: number) => a[Math.floor((a.length - 1) * f)]!;
    spreadIn += at(inner, 0.75) - at(inner, 0.25);
    spreadOut += at(outer, 0.75) - at(outer, 0.25);
    mid[k] = at(inner, 0.5);
    mid[k + 3] = at(outer, 0.5);
  }
  if (spreadOut < MIN_SPREAD) return null;
  const s = Math.min(1, spreadIn / spreadOut);
  const alpha = 1 - s;
  if (alpha < ALPHA_RANGE[0] || alpha > ALPHA_RANGE[1]) return null;
  const ink = [0, 1, 2].map((k) => (mid[k]! - s * mid[k + 3]!) / alpha) as [number, number, number];
  if (ink.some((v) => v < -INK_SLACK || v > 255 + INK_SLACK)) return null;
  return { ink: ink.map((v) => Math.min(255, Math.max(0, v))) as [number, number, number], alpha };
}

/** Least spread (summed inter-quartile range, levels) of the photo around a line for a fit. */
const MIN_SPREAD = 24;

/** Un-blended colour of pixel i (may fall outside 0..255). */
export function unblend(rgb: Buffer, i: number, { ink, alpha }: InkPoint, out: number[]): number[] {
  for (let k = 0; k < 3; k++) out[k] = (rgb[i * 3 + k]! - alpha * ink[k]!) / (1 - alpha);
  return out;
}

/** The un-blended colour may stray this far (levels of the observed pixel) outside 0..255. */
const FEASIBLE_SLACK = 14;
/** The ink must move the photo at least this much (RGB length) to be told from it. */
const MIN_VISIBLE = 24;
/** Runs of candidates this thin (px either side of a centre line) are not marks: opened away. */
const THIN = 2;
/** Patches smaller than this (px) are specks. */
const MIN_PATCH = 40;
/** A patch is the mark when un-blending takes its edge contrast down to this share or less... */
const EDGE_DROP = 0.45;
/** ...from at least this much (summed channel levels): no edge, nothing to tell. */
const MIN_EDGE = 30;

/**
 * Patches of the ink near a line (within `window`, a 0/1 mask): pixels whose un-blended colour
 * is a colour and differs visibly from them, grouped into 4-connected patches; a patch is kept
 * when un-blending makes its edge disappear (its inside un-blended matches the photo 2-4 px
 * outside it) and it does not run on to the window's border (the photo, not a mark).
 */
export function inkPatches(
  rgb: Buffer,
  width: number,
  height: number,
  point: InkPoint,
  window: Uint8Array,
  /** Radius (px) of the surroundings a mark's drop is measured against: more than its half-width. */
  reach: number,
): Uint8Array {
  const n = width * height;
  const slack = FEASIBLE_SLACK / (1 - point.alpha);
  let cand: Uint8Array = new Uint8Array(n);
  const c = [0, 0, 0];
  // The ink shrinks the photo's distance to K by (1 − a): a mark is where that distance drops
  // to (1 − a) of the most distant photo around it. Photo colours that merely can be
  // un-blended (a brown fur under a red ink) have no such drop.
  const ratio = distanceDrop(rgb, width, height, point.ink, window, reach);
  for (let i = 0; i < n; i++) {
    if (!window[i]) continue;
    if (ratio[i]! > 1 - point.alpha + DROP_TOLERANCE) continue;
    unblend(rgb, i, point, c);
    let ok = true;
    let move = 0;
    for (let k = 0; k < 3; k++) {
      if (c[k]! < -slack || c[k]! > 255 + slack) ok = false;
      move += (rgb[i * 3 + k]! - c[k]!) ** 2;
    }
    if (ok && Math.sqrt(move) >= MIN_VISIBLE) cand[i] = 1;
  }
  // Thin runs of reachable colour (the edge between a dark tree and a bright sky passes through
  // every colour in between) would join a mark to the photo: opened away.
  cand = openMask(cand, width, height, THIN);
  const { labels, count } = components(cand, width, height);
  const size = new Uint32Array(count + 1);
  const border = new Uint8Array(count + 1);
  const edgeBefore = new Float64Array(count + 1);
  const edgeAfter = new Float64Array(count + 1);
  const edges = new Uint32Array(count + 1);
  for (let i = 0; i < n; i++) {
    const l = labels[i]!;
    if (!l) continue;
    size[l]!++;
    const x = i % width;
    const y = (i - x) / width;
    for (const [dx, dy] of DIRS) {
      const xx = x + dx;
      const yy = y + dy;
      if (xx < 0 || yy < 0 || xx >= width || yy >= height || !window[yy * width + xx]) border[l] = 1;
    }
  }
  for (const [p, q] of edgePairs(cand, width, height, PATCH_PAIRS, Infinity)) {
    const l = labels[p]!;
    unblend(rgb, p, point, c);
    for (let k = 0; k < 3; k++) {
      edgeBefore[l]! += Math.abs(rgb[p * 3 + k]! - rgb[q * 3 + k]!);
      edgeAfter[l]! += Math.abs(c[k]! - rgb[q * 3 + k]!);
    }
    edges[l]!++;
  }
  const keep = new Uint8Array(count + 1);
  for (let l = 1; l <= count; l++) {
    if (border[l] || size[l]! < MIN_PATCH || edges[l]! < 8) continue;
    const before = edgeBefore[l]! / edges[l]!;
    const after = edgeAfter[l]! / edges[l]!;
    if (before >= MIN_EDGE && after <= before * EDGE_DROP) keep[l] = 1;
  }
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (keep[labels[i]!]) out[i] = 1;
  return out;
}

/** How far a mark's drop of distance to the ink may stray from 1 − a. */
const DROP_TOLERANCE = 0.12;
const DROP_SCALE = 4;

/**
 * Per pixel, its distance to the ink over the largest such distance within `reach` px (a grey
 * dilation at 1/4 scale over 4×4 maxima): about 1 − a inside a mark narrower than 2·reach, 1
 * where the photo is the farthest colour around.
 */
function distanceDrop(
  rgb: Buffer,
  width: number,
  height: number,
  ink: readonly number[],
  window: Uint8Array,
  reach: number,
): Float32Array {
  const n = width * height;
  const dist = new Float32Array(n);
  for (let i = 0; i < n; i++)
    dist[i] = Math.hypot(rgb[i * 3]! - ink[0]!, rgb[i * 3 + 1]! - ink[1]!, rgb[i * 3 + 2]! - ink[2]!);
  const w = Math.ceil(width / DROP_SCALE);
  const h = Math.ceil(height / DROP_SCALE);
  const small = new Float32Array(w * h);
  for (let i = 0; i < n; i++) {
    const x = i % width;
    const y = (i - x) / width;
    const j = Math.floor(y / DROP_SCALE) * w + Math.floor(x / DROP_SCALE);
    if (dist[i]! > small[j]!) small[j] = dist[i]!;
  }
  const far = dilate(small, w, h, Math.max(1, Math.round(reach / DROP_SCALE)));
  const out = new Float32Array(n).fill(1);
  for (let i = 0; i < n; i++) {
    if (!window[i]) continue;
    const x = i % width;
    const y = (i - x) / width;
    out[i] = dist[i]! / Math.max(1, far[Math.floor(y / DROP_SCALE) * w + Math.floor(x / DROP_SCALE)]!);
  }
  return out;
}

/** A patch pixel that un-blending moves away from the photo around, against the ink (cosine below minus this), is photo. */
const ANTI_INK = 0.5;

/**
 * A found line's ink and the patches of it near the line (its glyphs' box grown by `reach`
 * line heights; a mark's drop is measured within `dropReach` line heights), full size; null
 * when the glyphs give no ink or no patch is found. Works on that box alone (speed).
 */
export async function lineInk(
  rgb: Buffer,
  width: number,
  height: number,
  line: Uint8Array,
  reach: number,
  dropReach: number,
): Promise<{ point: InkPoint; patches: Uint8Array } | null> {
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let i = 0; i < line.length; i++) {
    if (!line[i]) continue;
    const x = i % width;
    const y = (i - x) / width;
    x0 = Math.min(x0, x);
    x1 = Math.max(x1, x);
    y0 = Math.min(y0, y);
    y1 = Math.max(y1, y);
  }
  if (x1 < 0) return null;
  const lineHeight = Math.min(x1 - x0, y1 - y0) + 1;
  const r = Math.round(lineHeight * reach);
  const left = Math.max(0, x0 - r);
  const top = Math.max(0, y0 - r);
  const w = Math.min(width - 1, x1 + r) - left + 1;
  const h = Math.min(height - 1, y1 + r) - top + 1;
  const m = w * h;
  const sub = Buffer.alloc(m * 3);
  const subLine = new Uint8Array(m);
  for (let y = 0; y < h; y++) {
    rgb.copy(sub, y * w * 3, ((top + y) * width + left) * 3, ((top + y) * width + left + w) * 3);
    subLine.set(line.subarray((top + y) * width + left, (top + y) * width + left + w), y * w);
  }
  // The whole box is the window: a patch touching its border runs on into the photo.
  const window = new Uint8Array(m).fill(1);
  const drop = lineHeight * dropReach;

  let point = fitInkPoint(sub, subLine, w, h);
  if (!point) return null;
  let patches = inkPatches(sub, w, h, point, window, drop);
  if (!patches.includes(1)) return null;
  // Refitted on the patches found (a logo's solid parts are deeper than glyph strokes: a
  // surer spread), then looked for again with that ink. (Un-blending the line's glyphs too,
  // with the refitted ink, measured 29.2 dB inside `watermark-7`'s name against 29.9 dB
  // inpainted: their rims are most of a stroke.)
  const refit = fitInkPoint(sub, patches, w, h);
  if (refit) {
    const again = inkPatches(sub, w, h, refit, window, drop);
    if (again.includes(1)) [point, patches] = [refit, again];
  }
  // Per pixel, un-blending must bring it closer to the photo around the patches (learned
  // from the pixels outside them): a patch can take in photo pixels along its edge that
  // merely could be un-blended (fur inside a ring), which would come out as blotches. A
  // photo pixel wrongly un-blended moves away from the ink (green under a red ink); an
  // inked pixel over a backdrop unlike the surroundings (hair under a square logo) moves
  // anywhere. Only the first are dropped.
  const marked = growMask(patches, w, h, 2);
  for (let i = 0; i < m; i++) if (subLine[i]) marked[i] = 1;
  const around = await backgroundBehind(sub, marked, w, h);
  const c = [0, 0, 0];
  for (let i = 0; i < m; i++) {
    if (!patches[i]) continue;
    unblend(sub, i, point, c);
    let before = 0;
    let after = 0;
    let dot = 0;
    let norm = 0;
    let inkNorm = 0;
    for (let k = 0; k < 3; k++) {
      const b = around[i * 3 + k]!;
      before += (sub[i * 3 + k]! - b) ** 2;
      after += (c[k]! - b) ** 2;
      dot += (c[k]! - b) * (point.ink[k]! - b);
      norm += (c[k]! - b) ** 2;
      inkNorm += (point.ink[k]! - b) ** 2;
    }
    if (after >= before && dot < -ANTI_INK * Math.sqrt(norm * inkNorm)) patches[i] = 0;
  }
  const out = new Uint8Array(width * height);
  for (let y = 0; y < h; y++) out.set(patches.subarray(y * w, (y + 1) * w), (top + y) * width + left);
  return { point, patches: out };
}

/** Steps (px) across an edge from a glyph pixel to the photo beside it, for the edge fit. */
const EDGE_STEP = 3;
/** Least contrast (summed channel levels) of an edge pair, and most change one step further on either side. */
const EDGE_PAIR_CONTRAST = 40;
const EDGE_PAIR_SMOOTH = 14;
/** A pair fits the ink when every channel is within this (levels) of a·K + (1 − a)·outside. */
const EDGE_FIT_TOLERANCE = 10;
/** Random pairs of pairs tried, and at most this many pairs scored (evenly sampled). */
const EDGE_FIT_TRIES = 2000;
const EDGE_FIT_SAMPLE = 20_000;
/** Each try is first scored on at most this many pairs; this many best tries are then scored on EDGE_FIT_SAMPLE. */
const EDGE_SCREEN_SAMPLE = 2000;
const EDGE_SCREEN_KEEP = 8;
/** Opacities the edge fit may return (1 − a: 0.2-0.85; above, the glyphs are opaque and found by their push). */
const EDGE_ALPHA = [0.15, 0.8] as const;
/** Least fitting pairs for an ink, and their least share of the region's edge pairs. */
const EDGE_MIN_FIT = 120;
const EDGE_MIN_SHARE = 0.08;

/** The four directions edge pairs are taken along (the glyph search also takes their opposites). */
const EDGE_DIRS = [
  [1, 0],
  [0, 1],
  [1, 1],
  [1, -1],
] as const;

/** The box (x0, y0, x1, y1, inclusive) of a mask's set pixels, or null when none is set. */
export function maskBox(mask: Uint8Array, width: number): [number, number, number, number] | null {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -1, -1];
  for (let i = 0; i < mask.length; i++)
    if (mask[i]) {
      const x = i % width;
      const y = (i - x) / width;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      y1 = y;
    }
  return x1 < 0 ? null : [x0, y0, x1, y1];
}

/**
 * The ink of a translucent line from its edges alone, without its glyphs: across each glyph
 * edge the pixel inside (smooth one step further in) is the photo outside shrunk towards K,
 * I_in = a·K + (1 − a)·I_out, on all three channels, whatever the photo is (a red saucer, wood).
 * Every sharp edge pair in `region`, both ways round, is a candidate; the (a, K) that most of
 * them fit (random pairs of pairs, each fixing a and K by least squares) is the ink, refined by
 * least squares on the pairs that fit it. Photo edges rarely keep one ratio and one offset on
 * every channel. Returns the ink and the share of the pairs that fit it, or null when too few
 * pairs agree. `seed` makes it deterministic. The pixels it explains: `edgeGlyphs`.
 */
export function edgeInk(
  rgb: Buffer,
  width: number,
  height: number,
  region: Uint8Array,
  seed: number,
): { point: InkPoint; fit: number } | null {
  const box = maskBox(region, width);
  if (!box) return null;
  const dirs = EDGE_DIRS;
  const inside: number[] = [];
  const outside: number[] = [];
  const S = EDGE_STEP;
  for (let y = box[1]; y <= box[3]; y++)
    for (let x = box[0]; x <= box[2]; x++) {
      const i = y * width + x;
      if (!region[i]) continue;
      for (const [dx, dy] of dirs) {
        const [xb, yb, xq, yq, xf, yf] = [
          x - dx,
          y - dy,
          x + dx * S,
          y + dy * S,
          x + dx * (S + 1),
          y + dy * (S + 1),
        ];
        if (Math.min(xb, xq, xf) < 0 || Math.max(xb, xq, xf) >= width) continue;
        if (Math.min(yb, yq, yf) < 0 || Math.max(yb, yq, yf) >= height) continue;
        const q = yq * width + xq;
        const b = yb * width + xb;
        const f = yf * width + xf;
        let contrast = 0;
        let rough = 0;
        for (let k = 0; k < 3; k++) {
          contrast += Math.abs(rgb[i * 3 + k]! - rgb[q * 3 + k]!);
          rough = Math.max(
            rough,
            Math.abs(rgb[i * 3 + k]! - rgb[b * 3 + k]!),
            Math.abs(rgb[q * 3 + k]! - rgb[f * 3 + k]!),
          );
        }
        if (contrast < EDGE_PAIR_CONTRAST || rough > EDGE_PAIR_SMOOTH) continue;
        // Either end may be the glyph.
        inside.push(i, q);
        outside.push(q, i);
      }
    }
  const m = inside.length;
  if (m < EDGE_MIN_FIT) return null;
  const stride = Math.max(1, Math.floor(m / EDGE_FIT_SAMPLE));
  const fits = (j: number, s: number, b: readonly number[]) => {
    for (let k = 0; k < 3; k++)
      if (Math.abs(rgb[inside[j]! * 3 + k]! - s * rgb[outside[j]! * 3 + k]! - b[k]!) > EDGE_FIT_TOLERANCE)
        return false;
    return true;
  };
  const random = uniform(seed);
  // Each try is scored on a coarse sample first (EDGE_SCREEN_SAMPLE pairs); the EDGE_SCREEN_KEEP
  // best are scored on EDGE_FIT_SAMPLE (scoring every try on that took half a second a line).
  const screenStride = Math.max(1, Math.floor(m / EDGE_SCREEN_SAMPLE));
  const screened: { count: number; s: number; b: number[] }[] = [];
  for (let t = 0; t < EDGE_FIT_TRIES; t++) {
    const j1 = Math.floor(random() * m);
    const j2 = Math.floor(random() * m);
    let num = 0;
    let den = 0;
    for (let k = 0; k < 3; k++) {
      const dIn = rgb[inside[j1]! * 3 + k]! - rgb[inside[j2]! * 3 + k]!;
      const dOut = rgb[outside[j1]! * 3 + k]! - rgb[outside[j2]! * 3 + k]!;
      num += dIn * dOut;
      den += dOut * dOut;
    }
    if (den < 900) continue; // two pairs over the same backdrop fix nothing
    const s = num / den;
    if (s < 1 - EDGE_ALPHA[1] || s > 1 - EDGE_ALPHA[0]) continue;
    const b = [0, 1, 2].map(
      (k) =>
        (rgb[inside[j1]! * 3 + k]! -
          s * rgb[outside[j1]! * 3 + k]! +
          rgb[inside[j2]! * 3 + k]! -
          s * rgb[outside[j2]! * 3 + k]!) /
        2,
    );
    if (b.some((v) => v / (1 - s) < -INK_SLACK || v / (1 - s) > 255 + INK_SLACK)) continue;
    let count = 0;
    for (let j = 0; j < m; j += screenStride) if (fits(j, s, b)) count++;
    if (!count) continue;
    screened.push({ count, s, b });
    screened.sort((p, q) => q.count - p.count);
    screened.length = Math.min(screened.length, EDGE_SCREEN_KEEP);
  }
  let best = { count: 0, s: 0, b: [0, 0, 0] };
  for (const { s, b } of screened) {
    let count = 0;
    for (let j = 0; j < m; j += stride) if (fits(j, s, b)) count++;
    if (count > best.count) best = { count, s, b };
  }
  if (!best.count) return null;
  // Least squares on the fitting pairs: one slope for all channels, an offset per channel.
  const fitting: number[] = [];
  for (let j = 0; j < m; j++) if (fits(j, best.s, best.b)) fitting.push(j);
  if (fitting.length < EDGE_MIN_FIT || fitting.length < m * EDGE_MIN_SHARE) return null;
  const meanIn = [0, 0, 0];
  const meanOut = [0, 0, 0];
  for (const j of fitting)
    for (let k = 0; k < 3; k++) {
      meanIn[k]! += rgb[inside[j]! * 3 + k]! / fitting.length;
      meanOut[k]! += rgb[outside[j]! * 3 + k]! / fitting.length;
    }
  let num = 0;
  let den = 0;
  for (const j of fitting)
    for (let k = 0; k < 3; k++) {
      const dOut = rgb[outside[j]! * 3 + k]! - meanOut[k]!;
      num += (rgb[inside[j]! * 3 + k]! - meanIn[k]!) * dOut;
      den += dOut * dOut;
    }
  // The slope over all fitting pairs outside the opacities the fit may return: an opaque ink
  // (an opaque yellow "DO NOT COPY" over a dark meadow: its insides are K whatever the photo,
  // so any small slope fits them within the tolerance and the pairs chose ~0.08) or one too
  // faint to tell from the photo. Clamped, the opaque one was un-blended at 0.8, which
  // multiplies the letters' leftover by 5: bright red and yellow fragments. Those are left to
  // the direction's finder (inpainted).
  const slope = num / Math.max(1, den);
  if (slope < 1 - EDGE_ALPHA[1] || slope > 1 - EDGE_ALPHA[0]) return null;
  const s = slope;
  const alpha = 1 - s;
  const ink = [0, 1, 2].map((k) => Math.min(255, Math.max(0, (meanIn[k]! - s * meanOut[k]!) / alpha))) as [
    number,
    number,
    number,
  ];
  return { point: { ink, alpha }, fit: fitting.length / m };
}

/**
 * The pixels of `region` that an ink found by `edgeInk` explains (its glyphs): every pixel that
 * is some pixel 2-5 px away (any of 8 directions) shrunk towards K by (1 − a), within a looser
 * tolerance (JPEG blurs thin strokes).
 */
export function edgeGlyphs(
  rgb: Buffer,
  width: number,
  height: number,
  region: Uint8Array,
  point: InkPoint,
): Uint8Array {
  const { ink, alpha } = point;
  const s = 1 - alpha;
  const glyphs = new Uint8Array(region.length);
  const box = maskBox(region, width);
  if (!box) return glyphs;
  const all8 = [...EDGE_DIRS, ...EDGE_DIRS.map(([dx, dy]) => [-dx, -dy] as const)];
  for (let y = box[1]; y <= box[3]; y++)
    for (let x = box[0]; x <= box[2]; x++) {
      const i = y * width + x;
      if (!region[i]) continue;
      search: for (const [dx, dy] of all8)
        for (const step of GLYPH_STEPS) {
          const xq = x + dx * step;
          const yq = y + dy * step;
          if (xq < 0 || yq < 0 || xq >= width || yq >= height) continue;
          const q = yq * width + xq;
          let contrast = 0;
          let fitsHere = true;
          for (let k = 0; k < 3; k++) {
            contrast += Math.abs(rgb[i * 3 + k]! - rgb[q * 3 + k]!);
            if (Math.abs(rgb[i * 3 + k]! - alpha * ink[k]! - s * rgb[q * 3 + k]!) > GLYPH_TOLERANCE)
              fitsHere = false;
          }
          if (fitsHere && contrast >= GLYPH_CONTRAST) {
            glyphs[i] = 1;
            break search;
          }
        }
    }
  return glyphs;
}

/** A glyph pixel is the photo 2-5 px away shrunk towards the ink (farther, to reach a thick stroke's middle, took in the saucer's rim), within this (levels, per channel)... */
const GLYPH_STEPS = [2, 3, 4, 5] as const;
const GLYPH_TOLERANCE = 14;
/** ...from a pixel this different (summed levels). */
const GLYPH_CONTRAST = 30;
