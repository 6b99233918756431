/**
 * Translucent dark text the text detector does not see (a black "PROOF" at 35 % across a
 * face): a black ink at opacity a turns a photo pixel C into (1 − a)·C, so across every edge
 * of a glyph the pixel just inside is the pixel just outside times (1 − a), on all three
 * channels alike, and the inside stays smooth behind the edge. Photo edges rarely keep one
 * ratio on all channels (glasses, eyes, hair: hue changes with the light), and shadows fade
 * over many pixels. So the pixels that are the inner rim of such a sharp, grey edge are taken
 * per window of the ratio (1 − a), and closed into strokes. A window is the ink only when its
 * strokes, drawn black on white, are text to the text detector and pass the stroke test
 * (strokes.ts). Found glyphs are un-blended with K = black at the window's opacity (render.ts),
 * their edge band inpainted.
 */
import sharp from "sharp";
import { components } from "../../shared/components";
import { textProbability } from "../../vision/text-detector";
import { dilate, growMask } from "./morphology";
import { drawnText } from "./strokes";
import type { InkPoint } from "./ink-point";

/** The search works at this long side at most (edge steps are in pixels of it). */
const WORK_SIDE = 768;
/** Steps (px) from an inner rim pixel to the photo outside the glyph. */
const STEPS = [2, 3, 4] as const;
/** The outside must be this bright (levels, every channel) for a ratio to mean anything. */
const MIN_OUTSIDE = 40;
/** The pixel one step further inside matches the rim pixel within this (levels, per channel). */
const SMOOTH_INSIDE = 12;
/** The three channel ratios agree within this. */
const RATIO_AGREE = 0.08;
/** Ratios (1 − a) searched: opacities 0.15-0.8. */
const RATIO_RANGE = [0.2, 0.85] as const;
/** Half-width of a ratio window (windows are tried every half-width). */
const WINDOW_HALF = 0.04;
/** A glyph's rims are closed into strokes by this radius (px). */
const CLOSE = 2;
/** Pieces smaller than this (px) are specks. */
const MIN_PIECE = 25;
const TEXT_THRESHOLD = 76;
/** The drawing of the rims is given to the text detector shrunk by this factor. */
const DETECT_SHRINK = 2;
/** A piece is on a detected line when this share of it is. */
const ON_LINE = 0.5;
/** Least pixels of glyphs (share of the working image) for a mark. */
const MIN_SHARE = 0.0008;
const MIN_GLYPHS = 4;
/** Around the lines the text detector reads in the glyphs, their whole strokes are looked for within this (px). */
const ZONE = 6;
/** The ratio window for the whole glyphs, either side of the mark's. */
const WIDE_HALF = 0.08;
/** Radius (px) of the bright photo around a glyph pixel. */
const ENVELOPE = 6;
/** Steps a glyph grows into smooth neighbours. */
const FILL_STEPS = 4;

const DIRS = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
  [1, 1],
  [1, -1],
  [-1, 1],
  [-1, -1],
] as const;

/** Per pixel, the ratio inside/outside of a sharp grey edge it is the inner rim of (0 = none). */
function rimRatios(rgb: Buffer, w: number, h: number): Float32Array {
  const out = new Float32Array(w * h);
  const m = STEPS[STEPS.length - 1]!;
  for (let y = m; y < h - m; y++)
    for (let x = m; x < w - m; x++) {
      const p = y * w + x;
      let best = 0;
      let bestSpread = RATIO_AGREE;
      for (const [dx, dy] of DIRS) {
        const b = (y - dy) * w + x - dx;
        let smooth = true;
        for (let k = 0; k < 3; k++)
          if (Math.abs(rgb[b * 3 + k]! - rgb[p * 3 + k]!) > SMOOTH_INSIDE) smooth = false;
        if (!smooth) continue;
        for (const s of STEPS) {
          const q = (y + dy * s) * w + x + dx * s;
          let lo = Infinity;
          let hi = -Infinity;
          let sum = 0;
          for (let k = 0; k < 3; k++) {
            const o = rgb[q * 3 + k]!;
            if (o < MIN_OUTSIDE) {
              lo = -Infinity;
              break;
            }
            const r = rgb[p * 3 + k]! / o;
            lo = Math.min(lo, r);
            hi = Math.max(hi, r);
            sum += r;
          }
          if (lo === -Infinity) continue;
          const r = sum / 3;
          if (r < RATIO_RANGE[0] || r > RATIO_RANGE[1]) continue;
          if (hi - lo <= bestSpread) {
            bestSpread = hi - lo;
            best = r;
          }
        }
      }
      out[p] = best;
    }
  return out;
}

/** Closing of a 0/1 mask by a (2r+1)² square. */
function closeMask(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const grown = growMask(mask, w, h, r);
  const inverse = new Uint8Array(mask.length);
  for (let i = 0; i < mask.length; i++) inverse[i] = grown[i] ? 0 : 1;
  const back = growMask(inverse, w, h, r);
  for (let i = 0; i < mask.length; i++) back[i] = back[i] ? 0 : 1;
  return back;
}

export interface TranslucentMark {
  /** Glyph pixels (full size): un-blended, their edge band inpainted. */
  mask: Uint8Array;
  point: InkPoint;
}

/** Translucent dark text over the photo, or null. `handled`: pixels other finders took. */
export async function findTranslucentDark(
  rgb: Buffer,
  width: number,
  height: number,
  handled: Uint8Array | null,
): Promise<TranslucentMark | null> {
  const f = Math.min(1, WORK_SIDE / Math.max(width, height));
  const w = Math.max(1, Math.round(width * f));
  const h = Math.max(1, Math.round(height * f));
  const small =
    f < 1
      ? await sharp(rgb, { raw: { width, height, channels: 3 } })
          .resize(w, h)
          .raw()
          .toBuffer()
      : rgb;
  const n = w * h;
  const ratio = rimRatios(small, w, h);

  // Every ratio window is tried: the mark's is a bump on a smooth spread of photo edges, not
  // always a peak of its own.
  const windows: number[] = [];
  for (let r = RATIO_RANGE[0] + WINDOW_HALF; r <= RATIO_RANGE[1] - WINDOW_HALF + 1e-9; r += WINDOW_HALF)
    windows.push(r);
  let best: { glyphs: Uint8Array; r: number; count: number; lines: Uint8Array } | null = null;
  for (const r0 of windows) {
    const rims = new Uint8Array(n);
    for (let i = 0; i < n; i++) if (ratio[i] && Math.abs(ratio[i]! - r0) <= WINDOW_HALF) rims[i] = 1;
    const glyphs = closeMask(rims, w, h, CLOSE);
    const judged = await judge(glyphs, w, h);
    if (judged && (!best || judged.count > best.count)) best = { ...judged, r: r0 };
  }
  if (!best || best.count < n * MIN_SHARE) return null;

  // The whole glyphs: on the lines found, the rims of a wider window around the ratio (one
  // window holds a glyph's rims in pieces: JPEG and the photo's own texture scatter the ratio).
  // The detector reads those lines further along in the wider rims: only lines that extend a
  // line already found are added (other text in the photo, a name tag, is left alone).
  const wide = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (ratio[i] && Math.abs(ratio[i]! - best.r) <= WIDE_HALF) wide[i] = 1;
  const widened = closeMask(wide, w, h, CLOSE);
  const lines = Uint8Array.from(best.lines);
  const more = await judge(widened, w, h);
  if (more) {
    const parts = components(more.lines, w, h);
    const extends_ = new Uint8Array(parts.count + 1);
    for (let i = 0; i < n; i++) if (best.lines[i] && parts.labels[i]) extends_[parts.labels[i]!] = 1;
    for (let i = 0; i < n; i++) if (extends_[parts.labels[i]!]) lines[i] = 1;
  }
  const zone = growMask(lines, w, h, ZONE);
  const glyphs = new Uint8Array(n);
  for (let i = 0; i < n; i++) if ((zone[i] && widened[i]) || best.glyphs[i]) glyphs[i] = 1;
  // The other lines of a multi-line mark ("PROOF" over "FOR RESALE"): same ink and opacity,
  // same angle, a parallel baseline. Often too small or too broken for the detector to read.
  const companion = companionLines(glyphs, companionCandidates(ratio, best.r, w, h), w, h);
  if (companion)
    for (let i = 0; i < n; i++)
      if (companion.zone[i]) {
        zone[i] = 1;
        if (companion.glyphs[i]) glyphs[i] = 1;
      }
  // Then grown into smooth neighbours as dark against the bright photo around as the ink makes them.
  const lum = new Float32Array(n);
  for (let i = 0; i < n; i++) lum[i] = Math.max(small[i * 3]!, small[i * 3 + 1]!, small[i * 3 + 2]!);
  const envelope = dilate(lum, w, h, ENVELOPE);
  let front: number[] = [];
  for (let i = 0; i < n; i++) if (glyphs[i]) front.push(i);
  for (let step = 0; step < FILL_STEPS && front.length; step++) {
    const next: number[] = [];
    for (const p of front) {
      const x = p % w;
      for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, p - w, p + w]) {
        if (q < 0 || q >= n || glyphs[q] || !zone[q]) continue;
        if (lum[q]! > (best.r + WIDE_HALF) * envelope[q]!) continue;
        let near = true;
        for (let k = 0; k < 3; k++)
          if (Math.abs(small[q * 3 + k]! - small[p * 3 + k]!) > SMOOTH_INSIDE) near = false;
        if (!near) continue;
        glyphs[q] = 1;
        next.push(q);
      }
    }
    front = next;
  }
  best.glyphs = glyphs;

  // Full size: the glyphs (grown by a pixel for the resize), un-blended with black at 1 − r.
  let mask = best.glyphs;
  if (f < 1) {
    const up = await sharp(Buffer.from(mask.map((v) => v * 255)), {
      raw: { width: w, height: h, channels: 1 },
    })
      .resize(width, height, { fit: "fill" })
      .extractChannel(0)
      .raw()
      .toBuffer();
    mask = new Uint8Array(width * height);
    for (let i = 0; i < mask.length; i++) mask[i] = up[i]! >= 128 ? 1 : 0;
  }
  if (handled) for (let i = 0; i < mask.length; i++) if (handled[i]) mask[i] = 0;
  if (!mask.includes(1)) return null;
  return { mask, point: { ink: [0, 0, 0], alpha: 1 - best.r } };
}

/** Companion lines: rims within this of the mark's ratio (a line's rims scatter more when thin)... */
const COMPANION_HALF = 0.12;
/** ...looked for up to this many of the mark's line heights either side of it... */
const COMPANION_REACH = 3.5;
/** ...as a band of the rims' profile across the line, down to this share of its peak... */
const BAND_FLOOR = 0.3;
/** ...between these shares of the mark's line height... */
const BAND_HEIGHT = [0.25, 1.3] as const;
/** ...whose pieces lie this much inside the band. */
const IN_BAND = 0.6;

/** Rims within COMPANION_HALF of the mark's ratio, closed into strokes. */
function companionCandidates(ratio: Float32Array, r: number, w: number, h: number): Uint8Array {
  const rims = new Uint8Array(w * h);
  for (let i = 0; i < rims.length; i++)
    if (ratio[i] && Math.abs(ratio[i]! - r) <= COMPANION_HALF) rims[i] = 1;
  return closeMask(rims, w, h, CLOSE);
}

/**
 * Lines parallel to a found mark's line (`mark`: its glyphs) in `cand`: the mark's direction
 * and line height from its pixels' spread; across it, the profile of candidate pixels (within
 * the mark's length and half of it again either side) has a band of its own either side, and
 * the pieces lying in that band read as drawn text (at least MIN_GLYPHS strokes of varied
 * shapes). Returns the band (where the glyphs may grow) and its pieces, or null.
 */
export function companionLines(
  mark: Uint8Array,
  cand: Uint8Array,
  w: number,
  h: number,
): { zone: Uint8Array; glyphs: Uint8Array } | null {
  const n = w * h;
  let count = 0;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++)
    if (mark[i]) {
      count++;
      mx += i % w;
      my += Math.floor(i / w);
    }
  if (count < MIN_PIECE * MIN_GLYPHS) return null;
  mx /= count;
  my /= count;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++)
    if (mark[i]) {
      const dx = (i % w) - mx;
      const dy = Math.floor(i / w) - my;
      sxx += dx * dx;
      syy += dy * dy;
      sxy += dx * dy;
    }
  const theta = 0.5 * Math.atan2(2 * sxy, sxx - syy);
  const [ex, ey] = [Math.cos(theta), Math.sin(theta)];
  const uv = (i: number) => {
    const dx = (i % w) - mx;
    const dy = Math.floor(i / w) - my;
    return [dx * ex + dy * ey, -dx * ey + dy * ex] as const;
  };
  const us: number[] = [];
  const vs: number[] = [];
  for (let i = 0; i < n; i++)
    if (mark[i]) {
      const [u, v] = uv(i);
      us.push(u);
      vs.push(v);
    }
  us.sort((a, b) => a - b);
  vs.sort((a, b) => a - b);
  const at = (a: number[], f: number) => a[Math.floor((a.length - 1) * f)]!;
  const [u0, u1, v0, v1] = [at(us, 0.02), at(us, 0.98), at(vs, 0.05), at(vs, 0.95)];
  const lineH = Math.max(4, v1 - v0);
  const length = u1 - u0;
  if (length < 2 * lineH) return null; // not a line
  const near = growMask(mark, w, h, ZONE);
  const pieces = components(cand, w, h);
  const size = new Uint32Array(pieces.count + 1);
  for (let i = 0; i < n; i++) size[pieces.labels[i]!]!++;
  const reach = Math.ceil(lineH * COMPANION_REACH);
  const uMin = u0 - length / 2;
  const uMax = u1 + length / 2;
  // Profile across the line, offset from the mark's band outwards, per side.
  const profile = [new Float32Array(reach + 1), new Float32Array(reach + 1)];
  for (let i = 0; i < n; i++) {
    const k = pieces.labels[i]!;
    if (!k || size[k]! < MIN_PIECE || near[i]) continue;
    const [u, v] = uv(i);
    if (u < uMin || u > uMax) continue;
    const off = v > v1 ? v - v1 : v < v0 ? v0 - v : -1;
    if (off < 0 || off > reach) continue;
    profile[v > v1 ? 1 : 0]![Math.round(off)]!++;
  }
  const zone = new Uint8Array(n);
  const glyphs = new Uint8Array(n);
  let any = false;
  for (const side of [0, 1]) {
    const raw = profile[side]!;
    // Smoothed over a quarter line height: a band of text, not a row of specks.
    const r = Math.max(1, Math.round(lineH / 8));
    const prof = raw.map((_, j) => {
      let s = 0;
      for (let d = -r; d <= r; d++) s += raw[j + d] ?? 0;
      return s / (2 * r + 1);
    });
    let peak = 0;
    for (let j = 1; j < prof.length; j++) if (prof[j]! > prof[peak]!) peak = j;
    if (!prof[peak]) continue;
    let lo = peak;
    let hi = peak;
    while (lo > 0 && prof[lo - 1]! >= prof[peak]! * BAND_FLOOR) lo--;
    while (hi < prof.length - 1 && prof[hi + 1]! >= prof[peak]! * BAND_FLOOR) hi++;
    const bandH = hi - lo + 1;
    if (bandH < lineH * BAND_HEIGHT[0] || bandH > lineH * BAND_HEIGHT[1]) continue;
    // v range of the band, in the mark's frame.
    const [b0, b1] = side ? [v1 + lo, v1 + hi] : [v0 - hi, v0 - lo];
    const inBand = new Uint32Array(pieces.count + 1);
    for (let i = 0; i < n; i++) {
      const k = pieces.labels[i]!;
      if (!k || size[k]! < MIN_PIECE) continue;
      const [u, v] = uv(i);
      if (v >= b0 && v <= b1 && u >= uMin && u <= uMax) inBand[k]!++;
    }
    const kept = new Uint8Array(n);
    const owner = new Int32Array(n);
    let kx0 = Infinity;
    let kx1 = -Infinity;
    let pieceCount = 0;
    const counted = new Uint8Array(pieces.count + 1);
    for (let i = 0; i < n; i++) {
      const k = pieces.labels[i]!;
      if (!k || size[k]! < MIN_PIECE || inBand[k]! < size[k]! * IN_BAND || near[i]) continue;
      kept[i] = 1;
      owner[i] = 1;
      const [u] = uv(i);
      kx0 = Math.min(kx0, u);
      kx1 = Math.max(kx1, u);
      if (!counted[k]) {
        counted[k] = 1;
        pieceCount++;
      }
    }
    if (pieceCount < MIN_GLYPHS || kx1 - kx0 < 2 * bandH) continue;
    if (!drawnText(kept, owner, 1, w, h, MIN_PIECE)[1]) continue;
    for (let i = 0; i < n; i++) {
      const [u, v] = uv(i);
      if (v >= b0 - 2 && v <= b1 + 2 && u >= kx0 - bandH / 2 && u <= kx1 + bandH / 2) {
        zone[i] = 1;
        if (cand[i]) glyphs[i] = 1;
      }
    }
    any = true;
  }
  return any ? { zone, glyphs } : null;
}

/** The pieces of `glyphs` that are drawn text: on a line the detector reads in them, as strokes. */
async function judge(
  glyphs: Uint8Array,
  w: number,
  h: number,
): Promise<{ glyphs: Uint8Array; count: number; lines: Uint8Array } | null> {
  const n = w * h;
  const pieces = components(glyphs, w, h);
  const size = new Uint32Array(pieces.count + 1);
  for (let i = 0; i < n; i++) size[pieces.labels[i]!]!++;
  const drawn = Buffer.alloc(n * 3, 255);
  let any = 0;
  for (let i = 0; i < n; i++)
    if (pieces.labels[i] && size[pieces.labels[i]!]! >= MIN_PIECE) {
      drawn[i * 3] = drawn[i * 3 + 1] = drawn[i * 3 + 2] = 0;
      any++;
    }
  if (any < n * MIN_SHARE) return null;
  // Read at half size (a quarter of the detector's time: it runs once per ratio window); the
  // marks are tens of pixels tall there still.
  const dw = Math.max(32, Math.round(w / DETECT_SHRINK));
  const dh = Math.max(32, Math.round(h / DETECT_SHRINK));
  const shrunk = await sharp(drawn, { raw: { width: w, height: h, channels: 3 } })
    .resize(dw, dh, { fit: "fill" })
    .raw()
    .toBuffer();
  const p = await sharp(await textProbability(shrunk, dw, dh), {
    raw: { width: dw, height: dh, channels: 1 },
  })
    .resize(w, h, { fit: "fill" })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const line = new Uint8Array(n);
  for (let i = 0; i < n; i++) line[i] = p[i]! > TEXT_THRESHOLD ? 1 : 0;
  const lines = components(growMask(line, w, h, 4), w, h);
  // Per piece, its share on a line and which line.
  const on = new Uint32Array(pieces.count + 1);
  const owner = new Int32Array(pieces.count + 1);
  for (let i = 0; i < n; i++) {
    const k = pieces.labels[i]!;
    if (!k || !lines.labels[i]) continue;
    on[k]!++;
    owner[k] = lines.labels[i]!;
  }
  const kept = new Uint8Array(n);
  const keptOwner = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const k = pieces.labels[i]!;
    if (k && size[k]! >= MIN_PIECE && on[k]! >= size[k]! * ON_LINE) {
      kept[i] = 1;
      keptOwner[i] = owner[k]!;
    }
  }
  const strokes = drawnText(kept, keptOwner, lines.count, w, h, MIN_PIECE);
  const perLine = new Uint32Array(lines.count + 1);
  const keptPieces = components(kept, w, h);
  const seen = new Uint8Array(keptPieces.count + 1);
  for (let i = 0; i < n; i++) {
    const k = keptPieces.labels[i]!;
    if (k && !seen[k]) {
      seen[k] = 1;
      perLine[keptOwner[i]!]!++;
    }
  }
  let count = 0;
  for (let i = 0; i < n; i++) {
    const l = keptOwner[i]!;
    if (!kept[i] || !strokes[l] || perLine[l]! < MIN_GLYPHS) kept[i] = 0;
    else count++;
  }
  const onLines = new Uint8Array(n);
  for (let i = 0; i < n; i++)
    if (lines.labels[i] && strokes[lines.labels[i]!] && perLine[lines.labels[i]!]! >= MIN_GLYPHS)
      onLines[i] = 1;
  return count ? { glyphs: kept, count, lines: onLines } : null;
}
