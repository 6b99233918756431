/**
 * Finds a semi-transparent white overlay (the common watermark: text or a logo blended at
 * a fixed opacity) and the opacity it was blended at.
 *
 * A white overlay at opacity a turns a photo pixel C into I = a·255 + (1 − a)·C, so on
 * every channel it raises the pixel towards white by the same fraction a. A pixel is taken
 * as overlaid when (1) it stands out brighter than a grey opening of its surroundings,
 * (2) against the photo estimated behind it, all three channels agree on one a, (3) that a
 * is near the image's dominant a, (4) it sits in a dense cluster of such pixels (strokes,
 * not specks), and (5) the text detector sees text near it.
 */
import sharp from "sharp";
import { backgroundBehind } from "./background";
import { components } from "../../shared/components";
import { density, growMask, open } from "./morphology";

const SCALE = 4; // the opening runs at 1/4 scale
const OPEN_RADIUS = 14; // 1/4-scale px: strokes up to ~110 px wide stand out
const MIN_RISE = 12; // levels brighter than the opening, on every channel
const MIN_ALPHA = 0.15; // faint rises are texture, not overlay
const CHANNEL_SPREAD = 0.1; // how far the three channels' a may disagree
const ALPHA_RANGE = [0.3, 0.9] as const; // where the dominant opacity is searched
const ALPHA_TOLERANCE = 0.12;
const PEAK_WIDTH = 5; // hundredths of opacity either side of the mode
const BRIGHT = 240; // behind brighter photo pixels the overlay is invisible: leave them
const STROKE_RADIUS = 7;
const STROKE_DENSITY = 0.2;
const TEXT_THRESHOLD = 76; // text probability (0..255)
const TEXT_REACH = 16; // px around detected text that still counts as the watermark
const FLOOR_SLACK = 8; // levels of JPEG noise below the overlay's floor
const GROW_DISTANCE = 150; // summed channel levels between a grown pixel and its seed
// Steps a stroke may grow from its seeds: further, it leaks into bright texture near thin text
// (bench:watermark: 4 → +1.8 dB on watermark-2, 10 → +2.2, 20 → +2.5 but −1 dB outside watermark-1).
const GROW_DEPTH = 10;
// A second opacity: its share of the estimates near text, its least count and its contrast
// (bench:watermark: watermark-2's second peak at 0.85 passes at shares 0.04-0.15 and
// contrasts 1.5-3; at 6 it is missed; at 1.5 clean photos show spurious second peaks).
const SECOND_SHARE = 0.08;
const SECOND_MIN = 50;
const SECOND_CONTRAST = 3;
const MODE_RADIUS = 15; // px over which a stroke's opacity is decided by majority
/** Fewest overlaid pixels (share of the image) that count as a watermark. */
const MIN_SHARE = 0.001;
/**
 * Least peak (share of the estimates at the dominant opacity) that counts as one overlay opacity. The fixtures'
 * watermarks measure 0.43-0.51 from 1333 px wide; clean fixture photos at most 0.36 (at a
 * plausible opacity, at 1000 and 1920 px).
 */
const MIN_PEAK = 0.38;
/** Watermark opacities that count; nearer the search range's ends, texture fakes a peak. */
const PLAUSIBLE = [0.35, 0.85] as const;

export interface Overlay {
  /** Whether there is an overlay at all (enough overlaid pixels at one clear opacity). */
  found: boolean;
  /** Per pixel, the opacity to remove (0 where the photo is left alone). */
  perPixel: Float32Array;
}

/** Estimates the white overlay of RGB pixels; `textProbability` is the detector's map. */
export async function findWhiteOverlay(
  rgb: Buffer,
  width: number,
  height: number,
  textProbability: Uint8Array,
): Promise<Overlay> {
  const n = width * height;
  // (1) Brighter than the opening on every channel.
  const w = Math.max(1, Math.round(width / SCALE));
  const h = Math.max(1, Math.round(height / SCALE));
  const small = await sharp(rgb, { raw: { width, height, channels: 3 } })
    .resize(w, h, { fit: "fill" })
    .raw()
    .toBuffer();
  const openedSmall = Buffer.alloc(w * h * 3);
  for (let c = 0; c < 3; c++) {
    const plane = new Float32Array(w * h);
    for (let i = 0; i < w * h; i++) plane[i] = small[i * 3 + c]!;
    const o = open(plane, w, h, OPEN_RADIUS);
    for (let i = 0; i < w * h; i++) openedSmall[i * 3 + c] = Math.round(o[i]!);
  }
  const opened = await sharp(openedSmall, { raw: { width: w, height: h, channels: 3 } })
    .resize(width, height, { kernel: "linear", fit: "fill" })
    .raw()
    .toBuffer();
  const candidate = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    let rise = 255;
    let alpha = 1;
    for (let c = 0; c < 3; c++) {
      const d = rgb[i * 3 + c]! - opened[i * 3 + c]!;
      rise = Math.min(rise, d);
      alpha = Math.min(alpha, d / Math.max(1, 255 - opened[i * 3 + c]!));
    }
    if (rise > MIN_RISE && alpha > MIN_ALPHA) candidate[i] = 1;
  }

  // (2) One a on all channels, against the photo behind the candidates.
  const behind = await backgroundBehind(rgb, growMask(candidate, width, height, 2), width, height);
  const text = new Uint8Array(n);
  for (let i = 0; i < n; i++) text[i] = textProbability[i]! > TEXT_THRESHOLD ? 1 : 0;
  // Where the marks are: near detected text, and (step 5b) beside the parts found there.
  const nearMark = growMask(text, width, height, TEXT_REACH);
  const estimate = new Float32Array(n).fill(-1);
  const histogram = new Uint32Array(101);
  for (let i = 0; i < n; i++) {
    if (!candidate[i]) continue;
    let lo = Infinity;
    let hi = -Infinity;
    let sum = 0;
    let bright = false;
    for (let c = 0; c < 3; c++) {
      const b = behind[i * 3 + c]!;
      if (b > BRIGHT) bright = true;
      const a = (rgb[i * 3 + c]! - b) / (255 - b);
      lo = Math.min(lo, a);
      hi = Math.max(hi, a);
      sum += a;
    }
    if (bright || hi - lo >= CHANNEL_SPREAD) continue;
    estimate[i] = sum / 3;
    // The opacity is read where the detector sees text: elsewhere bright texture dilutes it.
    if (nearMark[i]) histogram[Math.min(100, Math.max(0, Math.round((sum / 3) * 100)))]!++;
  }

  // (3) The dominant opacity.
  let mode = Math.round(ALPHA_RANGE[0] * 100);
  for (let k = mode; k < ALPHA_RANGE[1] * 100; k++) if (histogram[k]! > histogram[mode]!) mode = k;
  const alpha = mode / 100;
  let inRange = 0;
  let atPeak = 0;
  for (let k = Math.round(ALPHA_RANGE[0] * 100); k <= ALPHA_RANGE[1] * 100; k++) {
    inRange += histogram[k]!;
    if (Math.abs(k - mode) <= PEAK_WIDTH) atPeak += histogram[k]!;
  }
  // Share of the estimates at the dominant opacity: an overlay blended at one opacity makes
  // a sharp peak; bright texture (and any grey photo, whose channels always agree) spreads out.
  const peak = inRange ? atPeak / inRange : 0;
  // A second opacity counts when it is a peak of its own, away from the first: a mark can be
  // blended unevenly, or a second mark (a credit line) at another opacity.
  const modes = [alpha];
  let second = -1;
  for (let k = Math.round(ALPHA_RANGE[0] * 100); k < ALPHA_RANGE[1] * 100; k++)
    if (Math.abs(k - mode) > ALPHA_TOLERANCE * 100 && (second < 0 || histogram[k]! > histogram[second]!))
      second = k;
  if (second >= 0) {
    let around = 0;
    for (let k = second - PEAK_WIDTH; k <= second + PEAK_WIDTH; k++) around += histogram[k] ?? 0;
    // A peak stands SECOND_CONTRAST times above the histogram a little way either side.
    const isPeak = [second - PEAK_WIDTH - 3, second + PEAK_WIDTH + 3].every(
      (k) => (histogram[k] ?? 0) * SECOND_CONTRAST < histogram[second]!,
    );
    if (inRange && around / inRange >= SECOND_SHARE && histogram[second]! >= SECOND_MIN && isPeak)
      modes.push(second / 100);
  }
  const core = new Uint8Array(n);
  // Each overlaid pixel's own opacity: the mode its estimate is nearest.
  const own = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    if (estimate[i]! < 0) continue;
    const e = estimate[i]!;
    let nearest = modes[0]!;
    for (const m of modes) if (Math.abs(e - m) < Math.abs(e - nearest)) nearest = m;
    if (Math.abs(e - nearest) >= ALPHA_TOLERANCE) continue;
    core[i] = 1;
    own[i] = nearest;
  }

  // (4) Strokes, not specks; (5) near detected text.
  const dense = density(core, width, height, STROKE_RADIUS);
  for (let i = 0; i < n; i++) if (core[i] && (dense[i]! < STROKE_DENSITY || !nearMark[i])) core[i] = 0;
  // (5b) The rest of a logo: parts the detector did not take for text (a ring around a
  // symbol it did) sit next to the found mark at its opacity, densely.
  for (const i of logoParts(estimate, core, alpha, width, height)) {
    core[i] = 1;
    own[i] = alpha;
    nearMark[i] = 1;
  }
  if (modes.length > 1) {
    // One stroke, one opacity: noisy estimates inside a stroke can sit nearer the other mode
    // (and would be over- or under-corrected), so each pixel takes the locally dominant one.
    const atFirst = Uint8Array.from(core, (v, i) => (v && own[i] === modes[0] ? 1 : 0));
    const atSecond = Uint8Array.from(core, (v, i) => (v && own[i] === modes[1] ? 1 : 0));
    const first = density(atFirst, width, height, MODE_RADIUS);
    const secondNear = density(atSecond, width, height, MODE_RADIUS);
    for (let i = 0; i < n; i++) if (core[i]) own[i] = secondNear[i]! > first[i]! ? modes[1]! : modes[0]!;
  }

  // (6) Grow the strokes from their confident pixels (wide strokes over skin fail step 2: the
  // background inside them is learned from too far away). A neighbour joins when un-blending
  // it gives a colour close to its seed's restored colour, and closer than leaving it does.
  // Each grown pixel keeps its seed's colour as reference, so the growth cannot drift.
  const restored = (i: number, c: number, a: number) => (rgb[i * 3 + c]! - a * 255) / (1 - a);
  const seed = Uint8Array.from(core);
  const ref = new Float32Array(n * 3);
  const queue: number[] = [];
  const depth = new Uint16Array(n);
  for (let i = 0; i < n; i++)
    if (core[i]) {
      queue.push(i);
      for (let c = 0; c < 3; c++) ref[i * 3 + c] = restored(i, c, own[i]!);
    }
  for (let head = 0; head < queue.length; head++) {
    const q = queue[head]!;
    const qx = q % width;
    for (const p of [q - 1, q + 1, q - width, q + width]) {
      if (p < 0 || p >= n || core[p] || !candidate[p] || !nearMark[p]) continue;
      if (depth[q]! >= GROW_DEPTH) continue;
      if (Math.abs((p % width) - qx) > 1) continue;
      // A white overlay at opacity a lifts every channel above a·255.
      if (Math.min(rgb[p * 3]!, rgb[p * 3 + 1]!, rgb[p * 3 + 2]!) < own[q]! * 255 - FLOOR_SLACK) continue;
      let asOverlay = 0;
      let asPhoto = 0;
      for (let c = 0; c < 3; c++) {
        asOverlay += Math.abs(restored(p, c, own[q]!) - ref[q * 3 + c]!);
        asPhoto += Math.abs(rgb[p * 3 + c]! - ref[q * 3 + c]!);
      }
      if (asOverlay >= asPhoto || asOverlay > GROW_DISTANCE) continue;
      core[p] = 1;
      for (let c = 0; c < 3; c++) ref[p * 3 + c] = ref[q * 3 + c]!;
      depth[p] = depth[q]! + 1;
      own[p] = own[q]!;
      queue.push(p);
    }
  }

  // Anti-aliased edges carry less than the full opacity: each pixel next to a stroke gets its
  // own estimate, capped at the dominant opacity, against the stroke's reference colour where
  // a stroke pixel touches it (else against the estimated background).
  const alphaAgainst = (i: number, bg: (c: number) => number, cap: number) => {
    let sum = 0;
    for (let c = 0; c < 3; c++) sum += (rgb[i * 3 + c]! - bg(c)) / Math.max(15, 255 - bg(c));
    return Math.min(cap, Math.max(0, sum / 3));
  };
  const reach = growMask(core, width, height, 1);
  const perPixel = new Float32Array(n);
  let overlaid = 0;
  for (let i = 0; i < n; i++) {
    if (!reach[i]) continue;
    let a: number;
    if (core[i] && !seed[i]) a = alphaAgainst(i, (c) => ref[i * 3 + c]!, own[i]!);
    else {
      const x = i % width;
      const touching = core[i]
        ? -1
        : [i - 1, i + 1, i - width, i + width].find(
            (p) => p >= 0 && p < n && Math.abs((p % width) - x) <= 1 && core[p] && !seed[p],
          );
      if (touching !== undefined && touching >= 0)
        a = alphaAgainst(i, (c) => ref[touching * 3 + c]!, own[touching]!);
      else {
        if (Math.max(behind[i * 3]!, behind[i * 3 + 1]!, behind[i * 3 + 2]!) > BRIGHT) continue;
        // A rim pixel takes the opacity of the stroke it borders.
        const cap = core[i]
          ? own[i]!
          : Math.max(0, ...[i - 1, i + 1, i - width, i + width].map((p) => (p >= 0 && p < n ? own[p]! : 0)));
        a = alphaAgainst(i, (c) => behind[i * 3 + c]!, cap || alpha);
      }
    }
    if (a <= 0.02) continue;
    perPixel[i] = a;
    if (core[i]) overlaid++;
  }
  const share = overlaid / n;
  // A mode at either end of the range is the tail of texture or highlights, not a peak.
  const plausible = alpha >= PLAUSIBLE[0] && alpha <= PLAUSIBLE[1];
  const found = share >= MIN_SHARE && peak >= MIN_PEAK && plausible;
  return { found, perPixel };
}

/** Removes a white overlay: C = (I − a·255) / (1 − a), per pixel. */
export function removeWhiteOverlay(rgb: Buffer, perPixel: Float32Array): Buffer {
  const out = Buffer.from(rgb);
  for (let i = 0; i < perPixel.length; i++) {
    const a = perPixel[i]!;
    if (a <= 0) continue;
    for (let c = 0; c < 3; c++)
      out[i * 3 + c] = Math.max(0, Math.min(255, Math.round((rgb[i * 3 + c]! - a * 255) / (1 - a))));
  }
  return out;
}

/** A logo part: within this many px of the found mark... */
const PART_REACH = 60;
/** ...with its estimates within this of the mark's opacity, packed this densely... */
const PART_BAND = 0.04;
const PART_DENSITY = 0.5;
/** ...at least this many pixels... */
const PART_MIN = 600;
/** ...with at most this share of the PART_RIM px around it at nearly the same opacity. */
const PART_RIM = 3;
const PART_RIM_ALIKE = 0.25;

/**
 * Pixels of the parts of a mark next to the found one, at its opacity: connected patches of
 * estimates within PART_BAND of `alpha`, dense, large enough and touching the found mark's
 * neighbourhood. Only what is beside a mark already found is searched, so bright photo
 * patches elsewhere at a similar opacity are left alone.
 */
function logoParts(
  estimate: Float32Array,
  core: Uint8Array,
  alpha: number,
  width: number,
  height: number,
): number[] {
  const n = width * height;
  const band = new Uint8Array(n);
  for (let i = 0; i < n; i++)
    band[i] = estimate[i]! >= 0 && Math.abs(estimate[i]! - alpha) <= PART_BAND ? 1 : 0;
  const dense = density(band, width, height, STROKE_RADIUS);
  for (let i = 0; i < n; i++) if (band[i] && dense[i]! < PART_DENSITY) band[i] = 0;
  const near = density(core, width, height, PART_REACH);
  const { labels, count } = components(growMask(band, width, height, 2), width, height);
  const size = new Uint32Array(count + 1);
  const touches = new Uint8Array(count + 1);
  for (let i = 0; i < n; i++) {
    const l = labels[i]!;
    if (!l || !band[i]) continue;
    size[l]!++;
    if (near[i]! > 0) touches[l] = 1;
  }
  // An overlay's edge is a step: just outside a part the photo is no longer lifted. Bright
  // photo patches fade out, their surroundings still read as nearly the same opacity.
  const part = new Uint8Array(n);
  for (let i = 0; i < n; i++)
    if (band[i] && touches[labels[i]!] && size[labels[i]!]! >= PART_MIN) part[i] = 1;
  const ring = growMask(part, width, height, PART_RIM);
  const rimLabel = components(ring, width, height);
  const rimSize = new Uint32Array(rimLabel.count + 1);
  const rimAlike = new Uint32Array(rimLabel.count + 1);
  for (let i = 0; i < n; i++) {
    const l = rimLabel.labels[i]!;
    if (!l || part[i]) continue;
    rimSize[l]!++;
    if (estimate[i]! >= 0 && Math.abs(estimate[i]! - alpha) <= PART_BAND * 2) rimAlike[l]!++;
  }
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const l = rimLabel.labels[i]!;
    if (part[i] && !core[i] && rimAlike[l]! <= rimSize[l]! * PART_RIM_ALIKE) out.push(i);
  }
  return out;
}
