import { forEachPiece8 } from "../../shared/components";
import { dilate } from "../../shared/hair/skin-guard";

/**
 * A colouring page's subject is a few closed regions, not a map of the photo's folds: inside
 * the subject (a person's matte, a pet's or an object's cut), the short traced pieces that
 * float free (a fold's fragment, a print's grain, a fur strand) go, the long lines and the
 * pieces that hang on them or on the outline stay, and small gaps between the ends of long
 * lines are closed along their direction. Clothing below a face takes a stricter budget than
 * the head: there, a piece must be longer and, unless it is long, follow one of the photo's
 * stronger edges.
 */
export interface TidyOptions {
  /** Subject at the lines' size (>= 128 inside). */
  subject: Uint8Array;
  /** 0/1 at the lines' size: the faces' boxes (their pieces are left as they are). */
  detail: Uint8Array;
  /** 0/1 at the lines' size: the subject's outline (drawn bold). */
  outline: Uint8Array;
  /** 0/1 at the lines' size: clothing (the subject below a face), or null. */
  clothing: Uint8Array | null;
  /** Gradient magnitude at the lines' size, and the level a clothing piece must reach on average. */
  mag: Float32Array;
  strong: number;
}

/** Shares of the subject's size (the square root of its area): a fragment, a long line, a gap. */
export const TIDY = {
  /** A piece shorter than this that hangs on nothing goes. */
  fragment: 0.11,
  /** A piece hanging on an anchor, shorter than this, is a stub and goes. */
  stub: 0.035,
  /** Clothing: a piece shorter than this that hangs on nothing goes. */
  clothingFragment: 0.18,
  /** A piece at least this long is a line of the drawing (and anchors the pieces touching it). */
  long: 0.22,
  /** Pieces within this many px (at 720 px) of an anchor hang on it. */
  touch: 3,
  /** The longest gap closed between a long line's end and another line, along its direction. */
  gap: 0.04,
  /** Paper pockets smaller than this side (squared) inside a tangle are filled: the tangle becomes its outline. */
  pocket: 0.045,
  /** A traced piece lying this much within 3 px of the outline doubles it and goes. */
  doubled: 0.7,
} as const;

/**
 * Tidies `lines` (0/1, w x h) in place; returns the number of pieces dropped and gaps closed
 * (for the tests).
 */
export function tidySubject(
  lines: Uint8Array,
  w: number,
  h: number,
  o: TidyOptions,
): { dropped: number; closed: number } {
  const n = w * h;
  let area = 0;
  for (let i = 0; i < n; i++) if (o.subject[i]! >= 128) area++;
  if (area < n * 0.01) return { dropped: 0, closed: 0 };
  const size = Math.sqrt(area);
  const fragment = size * TIDY.fragment;
  const clothingFragment = size * TIDY.clothingFragment;
  const long = size * TIDY.long;
  const stub = size * TIDY.stub;
  const touch = Math.max(2, Math.round((TIDY.touch * Math.max(w, h)) / 720));

  untangle(lines, w, h, o, (size * TIDY.pocket) ** 2);

  // Near the outline (3 px) and near the frame.
  const nearOutline = dilate(o.outline, w, h, 3);

  // The pieces, their facts.
  interface Piece {
    px: Int32Array;
    inSubject: number;
    inDetail: number;
    inClothing: number;
    nearOutline: number;
    mag: number;
  }
  const pieces: Piece[] = [];
  forEachPiece8(lines, w, h, (piece) => {
    let inSubject = 0;
    let inDetail = 0;
    let inClothing = 0;
    let near = 0;
    let mag = 0;
    for (const p of piece) {
      if (o.subject[p]! >= 128) inSubject++;
      if (o.detail[p]) inDetail++;
      if (o.clothing?.[p]) inClothing++;
      if (nearOutline[p]) near++;
      mag += o.mag[p]!;
    }
    pieces.push({
      px: Int32Array.from(piece),
      inSubject,
      inDetail,
      inClothing,
      nearOutline: near,
      mag: mag / piece.length,
    });
  });

  // Anchors: the outline, the frame, the long lines and the faces' pieces.
  const anchor = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (o.outline[i]) anchor[i] = 1;
  for (let x = 0; x < w; x++) anchor[x] = anchor[(h - 1) * w + x] = 1;
  for (let y = 0; y < h; y++) anchor[y * w] = anchor[y * w + w - 1] = 1;
  const mine = (pc: Piece) => pc.inSubject > pc.px.length / 2 && pc.inDetail <= pc.px.length / 2;
  for (const pc of pieces) {
    if (mine(pc) && pc.px.length < long) continue;
    for (const p of pc.px) anchor[p] = 1;
  }
  const anchored = dilate(anchor, w, h, touch);

  let dropped = 0;
  const keptLong: Piece[] = [];
  for (const pc of pieces) {
    if (!mine(pc)) continue;
    const len = pc.px.length;
    // A traced copy of the outline beside it: the outline is drawn.
    if (pc.nearOutline >= len * TIDY.doubled && len < long * 2) {
      for (const p of pc.px) lines[p] = 0;
      dropped++;
      continue;
    }
    if (len >= long) {
      keptLong.push(pc);
      continue;
    }
    const clothing = pc.inClothing > len / 2;
    let hangs = false;
    for (const p of pc.px)
      if (anchored[p]) {
        hangs = true;
        break;
      }
    // Clothing: a fold hanging on the outline or a long line, as long as a fragment, or a free
    // piece longer still, each along a strong edge; elsewhere (the head, a pet, an object) a
    // piece hanging on something (not a stub) or a free one as long as a fragment.
    const keep = clothing
      ? pc.mag >= o.strong && len >= (hangs ? fragment : clothingFragment)
      : len >= (hangs ? stub : fragment);
    if (!keep) {
      for (const p of pc.px) lines[p] = 0;
      dropped++;
    }
  }

  // Gaps: from each end of a long line, along its direction, to the nearest other ink.
  const gap = Math.max(3, Math.round(size * TIDY.gap));
  const owner = new Int32Array(n).fill(-1);
  pieces.forEach((pc, k) => {
    for (const p of pc.px) if (lines[p]) owner[p] = k;
  });
  for (let i = 0; i < n; i++) if (o.outline[i] && owner[i]! < 0) owner[i] = -2;
  let closed = 0;
  for (const pc of keptLong) {
    const k = pieces.indexOf(pc);
    for (const end of ends(pc.px, lines, w, h)) {
      const ex = end % w;
      const ey = (end - ex) / w;
      // The direction: from the piece's pixels within 6 px of the end to the end.
      let sx = 0;
      let sy = 0;
      let m = 0;
      for (const p of pc.px) {
        const x = p % w;
        const y = (p - x) / w;
        const d2 = (x - ex) ** 2 + (y - ey) ** 2;
        if (d2 > 0 && d2 <= 36) {
          sx += x;
          sy += y;
          m++;
        }
      }
      if (m < 3) continue;
      let dx = ex - sx / m;
      let dy = ey - sy / m;
      const norm = Math.hypot(dx, dy);
      if (norm < 1) continue;
      dx /= norm;
      dy /= norm;
      // The first ink of another piece (or the outline) in a 25-degree cone.
      let best: [number, number] | null = null;
      let bestD = Infinity;
      for (let yy = Math.max(0, ey - gap); yy <= Math.min(h - 1, ey + gap); yy++)
        for (let xx = Math.max(0, ex - gap); xx <= Math.min(w - 1, ex + gap); xx++) {
          const q = yy * w + xx;
          if (owner[q] === -1 || owner[q] === k) continue;
          const vx = xx - ex;
          const vy = yy - ey;
          const d = Math.hypot(vx, vy);
          if (d < 2 || d > gap) continue;
          if ((vx * dx + vy * dy) / d < Math.cos((25 * Math.PI) / 180)) continue;
          if (d < bestD) {
            bestD = d;
            best = [xx, yy];
          }
        }
      if (!best) continue;
      const steps = Math.ceil(bestD);
      for (let s = 1; s < steps; s++) {
        const x = Math.round(ex + ((best[0] - ex) * s) / steps);
        const y = Math.round(ey + ((best[1] - ey) * s) / steps);
        lines[y * w + x] = 1;
      }
      closed++;
    }
  }
  return { dropped, closed };
}

/**
 * A tangle (a ribbon bar, lace, a scribble of curls) rings many pockets of paper too small to
 * colour: the pockets (4-connected paper, the lines drawn 3 px wide, smaller than `maxArea`,
 * within the subject and off the faces) are filled and the tangle is replaced by the outline
 * of the filled shape, one closed line round it.
 */
function untangle(lines: Uint8Array, w: number, h: number, o: TidyOptions, maxArea: number): void {
  const n = w * h;
  const ink = dilate(lines, w, h, 1);
  const seen = new Uint8Array(n);
  const blob = new Uint8Array(n);
  const queue = new Int32Array(n);
  let filled = 0;
  const visit = (q: number, tail: number) => {
    if (ink[q] || seen[q]) return tail;
    seen[q] = 1;
    queue[tail] = q;
    return tail + 1;
  };
  for (let s = 0; s < n; s++) {
    if (ink[s] || seen[s]) continue;
    let head = 0;
    let tail = 0;
    queue[tail++] = s;
    seen[s] = 1;
    let ok = true;
    while (head < tail) {
      const p = queue[head++]!;
      if (o.subject[p]! < 128 || o.detail[p]) ok = false;
      const x = p % w;
      if (x === 0 || x === w - 1 || p < w || p >= n - w) ok = false;
      if (x > 0) tail = visit(p - 1, tail);
      if (x < w - 1) tail = visit(p + 1, tail);
      if (p >= w) tail = visit(p - w, tail);
      if (p < n - w) tail = visit(p + w, tail);
    }
    if (ok && tail < maxArea) {
      for (let i = 0; i < tail; i++) blob[queue[i]!] = 1;
      filled++;
    }
  }
  if (!filled) return;
  // The pockets and the ink around them (a pocket's ring, 3 px) are one shape: its boundary stays.
  const grown = dilate(blob, w, h, 2);
  const shape = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (blob[i] || (grown[i] && ink[i])) shape[i] = 1;
  for (let i = 0; i < n; i++) {
    if (!shape[i]) continue;
    const x = i % w;
    const inner =
      x > 0 &&
      x < w - 1 &&
      i >= w &&
      i < n - w &&
      shape[i - 1] &&
      shape[i + 1] &&
      shape[i - w] &&
      shape[i + w];
    lines[i] = inner ? 0 : 1;
  }
}

/** A piece's ends: its pixels with exactly one 8-neighbour in `lines`. */
function ends(px: Int32Array, lines: Uint8Array, w: number, h: number): number[] {
  const out: number[] = [];
  for (const p of px) {
    if (!lines[p]) continue;
    const x = p % w;
    const y = (p - x) / w;
    let k = 0;
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++) {
        if (!dx && !dy) continue;
        const xx = x + dx;
        const yy = y + dy;
        if (xx >= 0 && yy >= 0 && xx < w && yy < h && lines[yy * w + xx]) k++;
      }
    if (k === 1) out.push(p);
  }
  return out;
}
