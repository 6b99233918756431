/**
 * Text in any ink: coloured (a red credit, a blue site name), grey or black, opaque or
 * translucent. The white overlay (overlay.ts) and extreme opaque ink (opaque.ts) cover the
 * common cases; this covers the rest. Where the text detector sees a line of text, each
 * pixel's offset from the photo behind it (a median much wider than a stroke) is taken; a
 * watermark's glyphs all move the photo the same way (towards the ink's colour), so the
 * region's dominant offset direction names the ink, and its glyphs are the pixels pushed
 * far along it. A line is kept only when that reads as drawn text: a glyph-like share of the
 * region, a tight direction, strokes that end within the region. The glyphs are inpainted.
 */
import { components } from "../../shared/components";
import { backgroundBehind } from "./background";
import { growMask } from "./morphology";
import { drawnText } from "./strokes";
import { edgeGlyphs, edgeInk, lineInk, type InkPoint } from "./ink-point";

const TEXT_THRESHOLD = 76; // text probability (0..255), as in overlay.ts
const REGION_REACH = 8; // px: the detector's map is a shrunk text kernel
/** The photo behind the text is estimated from pixels at least this far from the text lines. */
const BACKDROP_REACH = 16;
/** Glyph pixels: offset along the ink direction at least this (levels, RGB length)... */
const MIN_PUSH = 38;
/** ...and at least this share of the region's strong push. */
const PUSH_SHARE = 0.45;
/** Glyphs cover between these shares of their text region... */
const INK_SHARE = [0.02, 0.55] as const;
const MIN_INK = 60;
/** ...their offsets agree in direction (mean cosine to the ink direction at least this)... */
const MIN_COHERENCE = 0.8;
/** ...the ink is a colour: its direction at least this far (sine of the angle) from grey... */
const MIN_CHROMA = 0.25;
/** ...and the region's other pixels are not pushed the same way (the photo, not ink). */
const MAX_REST_PUSH = 0.35;
/** How far a glyph is followed past the region through pixels pushed the same way. */
const GLYPH_REACH = 24;
/** At most this share of the glyphs' outline may touch pushed pixels outside the reach. */
const MAX_LEAK = 0.06;
const RIM = 2;
/** A line of drawn text: at least this many glyph-sized pieces... */
const MIN_GLYPHS = 4;
/** ...each at least this share of the line's ink (and MIN_PIECE px)... */
const PIECE_SHARE = 0.02;
const MIN_PIECE = 25;
/** ...and no piece more than this share of it. */
const MAX_PIECE_SHARE = 0.45;
/** A piece found along the direction is a letter when this share of it lies on the edge fit's glyphs. */
const ON_GLYPHS = 0.6;
/** A piece's push along the direction is the edge fit's ink's when a·(K − backdrop) predicts at least this share of it. */
const EXPLAINED_PUSH = 0.5;
/** At most this share of the letters' pixels (pieces on the edge fit's glyphs) may lie in pieces whose push it does not explain. */
const MAX_UNEXPLAINED = 1 / 3;
/** A line's edge fit works on its box grown by this (px): past its edge pairs (4 px) and glyph search (5 px). */
const BOX_MARGIN = 8;

/** A line's ink is looked for (logos, missed glyphs) within its box grown by this many line heights. */
const LOGO_REACH = 4;
/** A mark's drop towards the ink is measured against the photo within this many line heights. */
const DROP_REACH = 2;

/** Inks tried per line (offset direction groups, the best supported first). */
const MAX_INKS = 3;
/** Offsets whose direction is within this cosine of a group's mode belong to it. */
const MODE_COSINE = 0.9;
/** Directions sampled as candidate modes. */
const MODE_SAMPLES = 64;

/** The mode of the offsets' directions: the sampled direction most others lie close to, refined to their mean. */
function modeDirection(pool: number[], off: Float32Array, len: (i: number) => number): Float32Array {
  const unit = (i: number) => {
    const m = Math.max(1e-6, len(i));
    return [off[i * 3]! / m, off[i * 3 + 1]! / m, off[i * 3 + 2]! / m] as const;
  };
  let best = unit(pool[0]!);
  let bestCount = -1;
  const stride = Math.max(1, Math.floor(pool.length / MODE_SAMPLES));
  for (let s = 0; s < pool.length; s += stride) {
    const u = unit(pool[s]!);
    let c = 0;
    for (const i of pool) {
      const v = unit(i);
      if (u[0] * v[0] + u[1] * v[1] + u[2] * v[2] >= MODE_COSINE) c++;
    }
    if (c > bestCount) [best, bestCount] = [u, c];
  }
  const mean = new Float32Array(3);
  for (const i of pool) {
    const v = unit(i);
    if (best[0] * v[0] + best[1] * v[1] + best[2] * v[2] < MODE_COSINE) continue;
    for (let c = 0; c < 3; c++) mean[c] = mean[c]! + v[c]!;
  }
  const m = Math.hypot(mean[0]!, mean[1]!, mean[2]!) || 1;
  for (let c = 0; c < 3; c++) mean[c] = mean[c]! / m;
  return mean;
}

/**
 * Whether direction `d` is a line's ink: its glyphs (pixels pushed along it at least the
 * threshold) are a glyph-like share of the line, agree in direction, the direction is a
 * colour, and the rest of the line is not pushed the same way.
 */
function judgeInk(
  all: number[],
  d: Float32Array,
  along: (i: number, d: ArrayLike<number>) => number,
  len: (i: number) => number,
): { ok: boolean; strong: number; share?: number; coherence?: number; chroma?: number; rest?: number } {
  const pushes = all.map((i) => along(i, d));
  const sorted = Float32Array.from(pushes).sort().reverse();
  const strong = sorted.length ? sorted[Math.floor(sorted.length * 0.02)]! : 0;
  const threshold = Math.max(MIN_PUSH, strong * PUSH_SHARE);
  let k = 0;
  let cos = 0;
  let rest = 0;
  for (let j = 0; j < all.length; j++) {
    const p = pushes[j]!;
    if (p >= threshold) {
      k++;
      cos += p / Math.max(1e-6, len(all[j]!));
    } else rest += Math.max(0, p);
  }
  const share = k / Math.max(1, all.length);
  const coherence = k ? cos / k : 0;
  // A coloured ink: a neutral push (lighter or darker) is what shadows, highlights and
  // every edge of a black-and-white photo do; white and black marks are the other finders'.
  const grey = (d[0]! + d[1]! + d[2]!) / Math.sqrt(3);
  const chroma = Math.sqrt(Math.max(0, 1 - grey * grey));
  const restMean = rest / Math.max(1, all.length - k);
  const ok =
    k >= MIN_INK &&
    share >= INK_SHARE[0] &&
    share <= INK_SHARE[1] &&
    coherence >= MIN_COHERENCE &&
    chroma >= MIN_CHROMA &&
    restMean <= strong * MAX_REST_PUSH;
  return { ok, strong, share, coherence, chroma, rest: restMean };
}

/** A patch of one line's ink (a logo beside it, glyphs the direction missed) and that ink. */
export interface InkMark {
  mask: Uint8Array;
  point: InkPoint;
  /** Un-blended per pixel at the opacity that fits the photo around it (render.ts), nothing inpainted. */
  soft?: boolean;
  /** Un-blended at the ink's opacity, its 2 px rim at the opacity that fits the photo beside it, then smoothed (render.ts). */
  project?: boolean;
}

export interface InkedText {
  /** The glyphs found along the ink's direction, with their rim: inpainted. */
  inpaint: Uint8Array;
  /** Patches of a line's ink found by un-blending (ink-point.ts): un-blended, their rims inpainted. */
  unblend: InkMark[];
}

/** The pixels to inpaint (with their rim) and to un-blend, or null when no such text is found. */
export async function findInkedText(
  rgb: Buffer,
  width: number,
  height: number,
  textProbability: Uint8Array,
  /** Pixels already handled by the other finders: left out. */
  handled: Uint8Array | null,
): Promise<InkedText | null> {
  const n = width * height;
  const text = new Uint8Array(n);
  for (let i = 0; i < n; i++) text[i] = textProbability[i]! > TEXT_THRESHOLD ? 1 : 0;
  if (!text.includes(1)) return null;
  const region = growMask(text, width, height, REGION_REACH);
  const { labels, count } = components(region, width, height);

  // The photo behind the text, from the pixels around the text lines (normalized convolution):
  // a median or blur over the line itself would take the ink's colour where glyphs are dense.
  const backdrop = await backgroundBehind(rgb, growMask(text, width, height, BACKDROP_REACH), width, height);
  const off = new Float32Array(n * 3);
  for (let i = 0; i < n * 3; i++) off[i] = rgb[i]! - backdrop[i]!;
  const len = (i: number) => Math.hypot(off[i * 3]!, off[i * 3 + 1]!, off[i * 3 + 2]!);

  // Per region, the ink direction. A line can hold more than its glyphs (a spoon's highlight
  // beside a red credit): the strongest offsets alone would name the spoon. So the offsets'
  // directions are grouped around their modes, and each group, the best supported first, is
  // judged as the ink until one reads as drawn text.
  const pixels: number[][] = Array.from({ length: count + 1 }, () => []);
  for (let i = 0; i < n; i++) if (labels[i] && !handled?.[i]) pixels[labels[i]!]!.push(i);
  const along = (i: number, d: ArrayLike<number>) =>
    off[i * 3]! * d[0]! + off[i * 3 + 1]! * d[1]! + off[i * 3 + 2]! * d[2]!;
  const candidates: { dir: Float32Array; strong: number }[][] = Array.from({ length: count + 1 }, () => []);
  for (let l = 1; l <= count; l++) {
    const all = pixels[l]!;
    let pool = all.filter((i) => len(i) >= MIN_PUSH);
    for (let attempt = 0; attempt < MAX_INKS && pool.length >= MIN_INK; attempt++) {
      const d = modeDirection(pool, off, len);
      const verdict = judgeInk(all, d, along, len);
      if (verdict.ok) candidates[l]!.push({ dir: d, strong: verdict.strong });
      pool = pool.filter((i) => along(i, d) / len(i) < MODE_COSINE);
    }
  }
  const found = new Uint8Array(n);
  const foundOwner = new Int32Array(n);
  const done = new Uint8Array(count + 1);
  /** Each found line's ink direction. */
  const lineDir = new Float32Array((count + 1) * 3);
  for (let attempt = 0; attempt < MAX_INKS; attempt++) {
    const accept = new Uint8Array(count + 1);
    const dir = new Float32Array((count + 1) * 3);
    const strong = new Float32Array(count + 1);
    let any = false;
    for (let l = 1; l <= count; l++) {
      const c = candidates[l]![attempt];
      if (done[l] || !c) continue;
      accept[l] = 1;
      dir.set(c.dir, l * 3);
      strong[l] = c.strong;
      any = true;
    }
    if (!any) break;
    const glyphs = traceGlyphs(accept, dir, strong);
    for (let i = 0; i < n; i++)
      if (glyphs.mask[i]) {
        found[i] = 1;
        const l = glyphs.owner[i]!;
        foundOwner[i] = l;
        if (!done[l]) lineDir.set(dir.subarray(l * 3, l * 3 + 3), l * 3);
        done[l] = 1;
      }
  }
  if (!found.includes(1)) return null;

  // A translucent line over backdrops its ink pushes different ways (a red credit across a red
  // saucer and wood): its direction holds only part of the glyphs, and takes photo patches
  // pushed the same way (wood, a spoon's highlight) for letters. Its ink from the line's edges
  // (edgeInk) needs no glyphs. Where one fits, and it explains the push of some pieces found
  // along the direction but not of others, the pieces off the glyphs it explains are dropped
  // (they were photo) and the glyphs are un-blended (render.ts, unblendProjected).
  const unblended: InkMark[] = [];
  const direction = Uint8Array.from(found);
  for (let l = 1; l <= count; l++) {
    if (!done[l]) continue;
    // The work is done on the line's box (its region and the pieces found along its
    // direction), grown past the reach of the edge pairs and the glyph search: a credit is a
    // few hundred pixels across, the photo can be millions.
    let [x0, y0, x1, y1] = [width, height, -1, -1];
    const extend = (i: number) => {
      const x = i % width;
      const y = (i - x) / width;
      [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
    };
    for (const i of pixels[l]!) extend(i);
    for (let i = 0; i < n; i++) if (direction[i] && foundOwner[i] === l) extend(i);
    if (x1 < 0) continue;
    const left = Math.max(0, x0 - BOX_MARGIN);
    const top = Math.max(0, y0 - BOX_MARGIN);
    const bw = Math.min(width, x1 + 1 + BOX_MARGIN) - left;
    const bh = Math.min(height, y1 + 1 + BOX_MARGIN) - top;
    const bn = bw * bh;
    /** The photo's index of the box's pixel j. */
    const at = (j: number) => (top + Math.floor(j / bw)) * width + left + (j % bw);
    const boxRgb = Buffer.alloc(bn * 3);
    for (let y = 0; y < bh; y++) {
      const from = (top + y) * width + left;
      rgb.copy(boxRgb, y * bw * 3, from * 3, (from + bw) * 3);
    }
    const lineRegion = new Uint8Array(bn);
    for (const i of pixels[l]!) lineRegion[(Math.floor(i / width) - top) * bw + (i % width) - left] = 1;
    const edge = edgeInk(boxRgb, bw, bh, lineRegion, l);
    if (!edge) continue;
    // Per piece found along the direction, its push along it and the push the edges' ink
    // predicts there, a·(K − backdrop): the letters' pushes are the ink's, a photo patch's
    // (wood, a spoon's highlight) are not. When no piece's push is the edge ink's, or every
    // piece's is (the direction holds the whole line), the line stays as it was (inpainted).
    const ofLine = new Uint8Array(bn);
    for (let j = 0; j < bn; j++) {
      const i = at(j);
      if (direction[i] && foundOwner[i] === l) ofLine[j] = 1;
    }
    const pieces = components(ofLine, bw, bh);
    const { ink, alpha } = edge.point;
    const d = lineDir.subarray(l * 3, l * 3 + 3);
    const size = new Uint32Array(pieces.count + 1);
    const pushed = new Float64Array(pieces.count + 1);
    const predicted = new Float64Array(pieces.count + 1);
    for (let j = 0; j < bn; j++) {
      const k = pieces.labels[j]!;
      if (!k) continue;
      const i = at(j);
      size[k]!++;
      for (let c = 0; c < 3; c++) {
        pushed[k]! += off[i * 3 + c]! * d[c]!;
        predicted[k]! += alpha * (ink[c]! - backdrop[i * 3 + c]!) * d[c]!;
      }
    }
    const explained = new Uint8Array(pieces.count + 1);
    let inkPieces = 0;
    let otherPieces = 0;
    for (let k = 1; k <= pieces.count; k++)
      if (size[k]! >= MIN_PIECE) {
        explained[k] = predicted[k]! >= pushed[k]! * EXPLAINED_PUSH ? 1 : 0;
        if (explained[k]) inkPieces++;
        else otherPieces++;
      }
    if (!inkPieces || !otherPieces) continue;
    // The glyphs the edge ink explains. Per piece, its share on (or within 2 px of) them: a
    // letter lies on them, a photo patch pushed the same way mostly not. The pieces this calls
    // letters must mostly be pieces whose push the ink explains (the red credit: all of them,
    // pushes 0.90-1.00 of the ink's, against -0.05-0.18 on the wood and the spoon; seeded
    // credits over the espresso: 78-100 % of their pixels). A white mark over a golden meadow,
    // its ink read from the letters' blurred rims as brown at 0.33, had 58 % unexplained, and
    // un-blended its white letters stayed: such a line stays as it was. Looked for first only
    // within 2 px of the pieces.
    const close = growMask(ofLine, bw, bh, 2);
    for (let j = 0; j < bn; j++) close[j] &&= lineRegion[j]!;
    const near = growMask(edgeGlyphs(boxRgb, bw, bh, close, edge.point), bw, bh, 2);
    const on = new Uint32Array(pieces.count + 1);
    for (let j = 0; j < bn; j++) if (pieces.labels[j] && near[j]) on[pieces.labels[j]!]!++;
    const photo = new Uint8Array(pieces.count + 1);
    let letters = 0;
    let unexplained = 0;
    for (let k = 1; k <= pieces.count; k++)
      if (size[k]! >= MIN_PIECE) {
        photo[k] = on[k]! < size[k]! * ON_GLYPHS ? 1 : 0;
        if (!photo[k]) letters += size[k]!;
        if (!photo[k] && !explained[k]) unexplained += size[k]!;
      }
    if (unexplained > letters * MAX_UNEXPLAINED) continue;
    // The photo pieces are dropped and the glyphs un-blended; the letters are inpainted only
    // where a stroke's middle is out of the glyphs' reach (strokes over 5 px wide), in pieces of
    // MIN_PIECE or more (inpainted whole, the wood a letter's piece took in beside it made a
    // pale smudge).
    const glyphs = edgeGlyphs(boxRgb, bw, bh, lineRegion, edge.point);
    const rest = new Uint8Array(bn);
    for (let j = 0; j < bn; j++) {
      const i = at(j);
      if (foundOwner[i] !== l || !found[i]) continue;
      found[i] = 0;
      if (!photo[pieces.labels[j]!] && near[j] && !glyphs[j]) rest[j] = 1;
    }
    const holes = components(rest, bw, bh);
    const holeSize = new Uint32Array(holes.count + 1);
    for (let j = 0; j < bn; j++) holeSize[holes.labels[j]!]!++;
    for (let j = 0; j < bn; j++)
      if (holes.labels[j] && holeSize[holes.labels[j]!]! >= MIN_PIECE) found[at(j)] = 1;
    const mask = new Uint8Array(n);
    for (let j = 0; j < bn; j++) {
      const i = at(j);
      if (glyphs[j] && !found[i] && !handled?.[i]) mask[i] = 1;
    }
    unblended.push({ mask, point: edge.point, project: true });
  }

  // Each line's ink as a point (ink-point.ts): what the direction missed (the ink over a backdrop
  // it pushes another way) and marks in the same ink beside the text (a logo) are un-blended.
  const taken = Uint8Array.from(found);
  for (const mark of unblended) for (let i = 0; i < n; i++) if (mark.mask[i]) taken[i] = 1;
  if (handled) for (let i = 0; i < n; i++) if (handled[i]) taken[i] = 1;
  for (let l = 1; l <= count; l++) {
    if (!done[l]) continue;
    const line = new Uint8Array(n);
    // The ink of logos beside the line is fitted on all the glyphs its direction found (those
    // un-blended above are still the line's edges).
    for (let i = 0; i < n; i++) if (direction[i] && foundOwner[i] === l) line[i] = 1;
    const ink = await lineInk(rgb, width, height, line, LOGO_REACH, DROP_REACH);
    if (!ink) continue;
    const { point, patches } = ink;
    const mask = new Uint8Array(n);
    let any = false;
    for (let i = 0; i < n; i++)
      if (patches[i] && !taken[i]) {
        mask[i] = 1;
        taken[i] = 1;
        any = true;
      }
    if (any) unblended.push({ mask, point });
  }
  return { inpaint: growMask(found, width, height, RIM), unblend: unblended };

  /** The glyphs of the accepted lines along their inks: only lines that read as drawn text. */
  function traceGlyphs(accept: Uint8Array, dir: Float32Array, strong: Float32Array) {
    const push = (i: number, l: number) =>
      off[i * 3]! * dir[l * 3]! + off[i * 3 + 1]! * dir[l * 3 + 1]! + off[i * 3 + 2]! * dir[l * 3 + 2]!;
    const threshold = (l: number) => Math.max(MIN_PUSH, strong[l]! * PUSH_SHARE);

    // Glyphs: the pushed pixels of accepted regions, followed a little past them.
    const glyphs = new Uint8Array(n);
    const owner = new Int32Array(n);
    const queue: number[] = [];
    for (let i = 0; i < n; i++) {
      const l = labels[i]!;
      if (l && accept[l] && !handled?.[i] && push(i, l) >= threshold(l)) {
        glyphs[i] = 1;
        owner[i] = l;
        queue.push(i);
      }
    }
    const reach = growMask(text, width, height, GLYPH_REACH);
    for (let head = 0; head < queue.length; head++) {
      const p = queue[head]!;
      const l = owner[p]!;
      const x = p % width;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          if (x + dx < 0 || x + dx >= width) continue;
          const q = p + dy * width + dx;
          if (q < 0 || q >= n || glyphs[q] || !reach[q] || handled?.[q]) continue;
          if (push(q, l) < threshold(l) * 0.8) continue;
          glyphs[q] = 1;
          owner[q] = l;
          queue.push(q);
        }
    }
    // Ink that runs on past the reach is the photo (a red wall, a blue sky): drop the region.
    const edge = new Uint32Array(count + 1);
    const leak = new Uint32Array(count + 1);
    for (let p = 0; p < n; p++) {
      if (!glyphs[p]) continue;
      const l = owner[p]!;
      const x = p % width;
      for (const q of [x > 0 ? p - 1 : -1, x < width - 1 ? p + 1 : -1, p - width, p + width]) {
        if (q < 0 || q >= n || glyphs[q]) continue;
        edge[l]!++;
        // Growth stopped here only at the reach's end (or another finder's pixels).
        if (push(q, l) >= threshold(l) * 0.8) leak[l]!++;
      }
    }
    for (let p = 0; p < n; p++)
      if (glyphs[p] && leak[owner[p]!]! > edge[owner[p]!]! * MAX_LEAK) glyphs[p] = 0;

    // Drawn text is a row of separate glyphs of like size; a bright patch or a shadow the
    // detector took for text is one blob with specks. Per region: at least MIN_GLYPHS pieces
    // that each hold a real share of its ink, none of them most of it.
    const pieces = components(glyphs, width, height);
    const pieceSize = new Uint32Array(pieces.count + 1);
    const pieceOwner = new Int32Array(pieces.count + 1);
    const total = new Uint32Array(count + 1);
    for (let p = 0; p < n; p++) {
      const k = pieces.labels[p]!;
      if (!k) continue;
      pieceSize[k]!++;
      pieceOwner[k] = owner[p]!;
      total[owner[p]!]!++;
    }
    const glyphCount = new Uint32Array(count + 1);
    const largest = new Uint32Array(count + 1);
    for (let k = 1; k <= pieces.count; k++) {
      const l = pieceOwner[k]!;
      if (pieceSize[k]! >= Math.max(MIN_PIECE, total[l]! * PIECE_SHARE)) glyphCount[l]!++;
      largest[l] = Math.max(largest[l]!, pieceSize[k]!);
    }
    const textual = new Uint8Array(count + 1);
    for (let l = 1; l <= count; l++)
      textual[l] = glyphCount[l]! >= MIN_GLYPHS && largest[l]! <= total[l]! * MAX_PIECE_SHARE ? 1 : 0;
    // ...drawn as strokes, and not one shape repeated (stars, dots, buttons).
    const strokes = drawnText(glyphs, owner, count, width, height, MIN_PIECE);
    for (let l = 1; l <= count; l++) if (!strokes[l]) textual[l] = 0;
    for (let p = 0; p < n; p++) if (glyphs[p] && !textual[owner[p]!]) glyphs[p] = 0;
    return { mask: glyphs, owner };
  }
}
