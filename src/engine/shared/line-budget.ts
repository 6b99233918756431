/* eslint-disable @typescript-eslint/no-explicit-any -- opencv.js ships loose types */
import { opencv } from "./opencv";

/**
 * Sparse lines for the line effects (coloring page, line drawing) on textured photos: fur
 * among leaves, a meadow. Every blade, tuft and leaf edge is a line of its own, and a page
 * full of them reads as hatching. The lines are taken as pieces (8-connected), longest
 * first (a subject's pieces count double), and a piece is kept only while the ink already
 * kept around it stays under a density cap (per cell of a coarse grid): the long coherent
 * contours come first and the texture beside them is dropped. With a subject, the
 * background's ink is also held under a share of all the ink.
 */
export interface BudgetOptions {
  /** Subject at the lines' size (>= 128 inside), or null: a scene. */
  subject: Uint8Array | null;
  /** Pieces shorter than this (px) are scraps. */
  minLength: number;
  /**
   * Per-pixel measures and the mean a piece needs: structure-tensor coherence (a wandering
   * scribble has less), gradient strength (a texture scrap, linked through weak pixels, has less).
   */
  means?: Array<{ values: Float32Array; min: number }>;
  /** Side of a grid cell, px. */
  cell: number;
  /** Most ink (share of a cell's pixels) outside the subject. */
  cap: number;
  /** Most ink inside the subject. */
  subjectCap: number;
  /** With a subject: the background's most share of all the ink. */
  backgroundShare: number;
}

/** Clears (in place) the pieces of `lines` (non-zero) that exceed the budget. */
export function budgetLines(lines: Uint8Array, w: number, h: number, opts: BudgetOptions): void {
  const n = w * h;
  const seen = new Uint8Array(n);
  const pieces: Array<{ pixels: number[]; inSubject: boolean }> = [];
  const stack: number[] = [];
  for (let s = 0; s < n; s++) {
    if (!lines[s] || seen[s]) continue;
    const pixels: number[] = [];
    stack.push(s);
    seen[s] = 1;
    let inside = 0;
    const sums = (opts.means ?? []).map(() => 0);
    while (stack.length) {
      const p = stack.pop()!;
      pixels.push(p);
      if (opts.subject && opts.subject[p]! >= 128) inside++;
      opts.means?.forEach((m, k) => (sums[k]! += m.values[p]!));
      const x = p % w;
      const y = (p - x) / w;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const q = yy * w + xx;
          if (!seen[q] && lines[q]) {
            seen[q] = 1;
            stack.push(q);
          }
        }
      }
    }
    if (opts.means?.some((m, k) => sums[k]! / pixels.length < m.min)) continue;
    if (pixels.length >= opts.minLength) pieces.push({ pixels, inSubject: inside > pixels.length / 2 });
  }
  const weight = (p: { pixels: number[]; inSubject: boolean }) => p.pixels.length * (p.inSubject ? 2 : 1);
  pieces.sort((a, b) => weight(b) - weight(a));

  const cell = Math.max(4, Math.round(opts.cell));
  const gw = Math.ceil(w / cell);
  const gh = Math.ceil(h / cell);
  const ink = new Float32Array(gw * gh);
  const cellOf = (p: number) => {
    const x = p % w;
    return Math.floor((p - x) / w / cell) * gw + Math.floor(x / cell);
  };
  const area = cell * cell;
  let subjectInk = 0;
  const kept: Array<{ pixels: number[]; inSubject: boolean }> = [];
  for (const piece of pieces) {
    const cap = piece.inSubject ? opts.subjectCap : opts.cap;
    // The piece's own ink counts: a scribble filling its cell is over the cap on its own.
    const own = new Map<number, number>();
    for (const p of piece.pixels) {
      const c = cellOf(p);
      own.set(c, (own.get(c) ?? 0) + 1);
    }
    let over = 0;
    for (const [c, k] of own) if ((ink[c]! + k) / area > cap) over += k;
    if (over > piece.pixels.length / 3) continue;
    for (const [c, k] of own) ink[c]! += k;
    kept.push(piece);
    if (piece.inSubject) subjectInk += piece.pixels.length;
  }
  const keep = new Uint8Array(n);
  if (opts.subject && subjectInk > 0) {
    // background <= share * (subject + background): the longest background pieces first.
    const allowed = (opts.backgroundShare / (1 - opts.backgroundShare)) * subjectInk;
    let used = 0;
    for (const piece of kept) {
      if (!piece.inSubject) {
        if (used + piece.pixels.length > allowed) continue;
        used += piece.pixels.length;
      }
      for (const p of piece.pixels) keep[p] = 1;
    }
  } else for (const piece of kept) for (const p of piece.pixels) keep[p] = 1;
  for (let i = 0; i < n; i++) if (!keep[i]) lines[i] = 0;
}

/** Share of the working size at which a textured photo's big shapes are found. */
const COARSE = 1 / 3;

/**
 * The big shapes of a textured photo (`flat`: its flattened RGB, an OpenCV Mat), at the working size: Canny (grey and colour channels,
 * thresholds from its own gradients) on the flattened photo at COARSE of the size, softened,
 * scraps under 1/14 of its side and incoherent scribbles dropped, then the density budget (budgetLines),
 * enlarged back to thin lines.
 */
export async function bigShapes(
  flat: any,
  w: number,
  h: number,
  subject: Uint8Array | null,
): Promise<Uint8Array> {
  const { cv } = await opencv();
  const cw = Math.max(16, Math.round(w * COARSE));
  const ch = Math.max(16, Math.round(h * COARSE));
  const mats: any[] = [];
  const track = <T>(m: T): T => {
    mats.push(m);
    return m;
  };
  try {
    const small = track(new cv.Mat());
    cv.resize(flat, small, new cv.Size(cw, ch), 0, 0, cv.INTER_AREA);
    cv.GaussianBlur(small, small, new cv.Size(0, 0), 1);
    const gray = track(new cv.Mat());
    cv.cvtColor(small, gray, cv.COLOR_RGB2GRAY);
    const channels = track(new cv.MatVector());
    cv.split(small, channels);
    const gx = track(new cv.Mat());
    const gy = track(new cv.Mat());
    cv.Sobel(gray, gx, cv.CV_32F, 1, 0, 3);
    cv.Sobel(gray, gy, cv.CV_32F, 0, 1, 3);
    const ax = gx.data32F as Float32Array;
    const ay = gy.data32F as Float32Array;
    const cn = cw * ch;
    const mag = new Float32Array(cn);
    for (let i = 0; i < cn; i++) mag[i] = Math.hypot(ax[i]!, ay[i]!);
    // Only the strongest contours (fur and grass stay under this even at a third of the size).
    const hi = Math.max(60, quantile(mag, 0.95));
    // Structure-tensor coherence: near 1 along a contour, low in a scribble of texture.
    const jxx = track(new cv.Mat());
    const jxy = track(new cv.Mat());
    const jyy = track(new cv.Mat());
    cv.multiply(gx, gx, jxx);
    cv.multiply(gx, gy, jxy);
    cv.multiply(gy, gy, jyy);
    for (const m of [jxx, jxy, jyy]) cv.GaussianBlur(m, m, new cv.Size(0, 0), 1.5);
    const coherence = new Float32Array(cn);
    {
      const a = jxx.data32F as Float32Array;
      const b = jxy.data32F as Float32Array;
      const c = jyy.data32F as Float32Array;
      for (let i = 0; i < cn; i++) {
        const tr = a[i]! + c[i]!;
        coherence[i] = tr > 1e-3 ? Math.hypot(a[i]! - c[i]!, 2 * b[i]!) / tr : 0;
      }
    }
    const lines = new Uint8Array(cn);
    for (let c = 0; c < 4; c++) {
      const input = c < 3 ? track(channels.get(c)) : gray;
      const e = track(new cv.Mat());
      cv.Canny(input, e, hi * 0.45, hi, 3, true);
      const d = e.data as Uint8Array;
      for (let i = 0; i < cn; i++) if (d[i]) lines[i] = 1;
    }
    const subjectSmall = subject ? new Uint8Array(cn) : null;
    if (subject && subjectSmall)
      for (let y = 0; y < ch; y++)
        for (let x = 0; x < cw; x++)
          subjectSmall[y * cw + x] =
            subject[
              Math.min(h - 1, Math.floor((y * h) / ch)) * w + Math.min(w - 1, Math.floor((x * w) / cw))
            ]!;
    const cside = Math.max(cw, ch);
    budgetLines(lines, cw, ch, {
      subject: subjectSmall,
      minLength: cside / 14,
      means: [
        { values: coherence, min: 0.55 },
        { values: mag, min: hi * 0.85 },
      ],
      cell: cside / 12,
      cap: 0.12,
      subjectCap: 0.2,
      backgroundShare: 0.35,
    });
    const m = track(
      cv.matFromArray(
        ch,
        cw,
        cv.CV_8UC1,
        Uint8Array.from(lines, (v) => (v ? 255 : 0)),
      ),
    );
    const big = track(new cv.Mat());
    cv.resize(m, big, new cv.Size(w, h), 0, 0, cv.INTER_LINEAR);
    cv.GaussianBlur(big, big, new cv.Size(0, 0), 1 / COARSE / 2);
    const b = big.data as Uint8Array;
    const out = new Uint8Array(w * h);
    for (let i = 0; i < w * h; i++) if (b[i]! > 110) out[i] = 1;
    return out;
  } finally {
    for (const m of mats) m.delete();
  }
}

/** The value below which `q` of the entries lie (a 1-unit histogram up to 2048). */
function quantile(values: Float32Array, q: number): number {
  const bins = new Uint32Array(2048);
  for (const v of values) bins[Math.min(2047, Math.floor(v))]!++;
  const target = values.length * q;
  let seen = 0;
  for (let b = 0; b < bins.length; b++) {
    seen += bins[b]!;
    if (seen >= target) return b;
  }
  return 2047;
}
