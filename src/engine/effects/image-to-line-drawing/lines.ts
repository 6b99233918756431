/* eslint-disable @typescript-eslint/no-explicit-any -- opencv.js ships loose types */
import { bigShapes } from "../../shared/line-budget";
import { opencv } from "../../shared/opencv";

/**
 * The lines of the drawing, at the working size. The photo is flattened (repeated bilateral
 * filtering and a median: fur, grass, skin and fabric texture melt, the edges between areas
 * stay), then Canny runs on its grey and on each colour channel (a red shirt on green grass of
 * equal brightness still has an outline), with thresholds from the photo's own gradient
 * distribution. Inside a face's features (eyes, brows, nose, mouth) a second, finer Canny on
 * the unflattened photo adds what flattening lost. Scraps are then dropped by where they lie:
 * a short one on a face's feature is kept, on the subject it must be longer, in the
 * background longer still, and where edges are dense (fur, leaves, grass) longest of all.
 */
export interface TraceOptions {
  /** Subject (person, pet) at the working size, 0..255, or null: a scene. */
  subject: Uint8Array | null;
  /** 0/1 at the working size: a face's features. */
  features: Uint8Array;
  /** Whether the photo has faces (people keep all their lines: no texture budget). */
  people: boolean;
}

/** Share of edge pixels around a place above which it is texture, not outlines. */
const TEXTURE_DENSITY = 0.13;
/** Share of the working size at which the photo is flattened (bilateral filtering). */
const FLAT_SCALE = 0.7;
/** Mean coherence below which a piece outside a face's features is scribble, not a contour. */
const MIN_COHERENCE = 0.55;
/** Share of the picture with dense edges above which a pet's or an object's photo is textured. */
const TEXTURED_SHARE = 0.2;

/** Per pixel: 0 no line, 1 a line, 2 a line on the subject's outline (drawn bolder). */
export async function traceLines(rgb: Buffer, w: number, h: number, opts: TraceOptions): Promise<Uint8Array> {
  const { cv } = await opencv();
  const n = w * h;
  const side = Math.max(w, h);
  const mats: any[] = [];
  const track = <T>(m: T): T => {
    mats.push(m);
    return m;
  };
  try {
    const src = track(cv.matFromArray(h, w, cv.CV_8UC3, rgb));
    // The flattening runs at FLAT_SCALE of the working size (the bilateral filter is the
    // costliest step by far; its result is smooth, so it enlarges back without losing edges).
    const sw = Math.max(8, Math.round(w * FLAT_SCALE));
    const sh = Math.max(8, Math.round(h * FLAT_SCALE));
    let small = track(new cv.Mat());
    cv.resize(src, small, new cv.Size(sw, sh), 0, 0, cv.INTER_AREA);
    for (let k = 0; k < 4; k++) {
      const next = track(new cv.Mat());
      cv.bilateralFilter(small, next, 6, 40, 7 * FLAT_SCALE, cv.BORDER_DEFAULT);
      small = next;
    }
    const flat = track(new cv.Mat());
    cv.resize(small, flat, new cv.Size(w, h), 0, 0, cv.INTER_LINEAR);
    const flatter = track(new cv.Mat());
    cv.medianBlur(flat, flatter, 5);
    const gray = track(new cv.Mat());
    cv.cvtColor(flatter, gray, cv.COLOR_RGB2GRAY);
    const channels = track(new cv.MatVector());
    cv.split(flatter, channels);

    // Thresholds from the gradient distribution of the flattened photo.
    const gx = track(new cv.Mat());
    const gy = track(new cv.Mat());
    cv.Sobel(gray, gx, cv.CV_32F, 1, 0, 3);
    cv.Sobel(gray, gy, cv.CV_32F, 0, 1, 3);
    const ax = gx.data32F as Float32Array;
    const ay = gy.data32F as Float32Array;
    const mag = new Float32Array(n);
    for (let i = 0; i < n; i++) mag[i] = Math.hypot(ax[i]!, ay[i]!);
    // Structure-tensor coherence (0..1): near 1 along a clean contour, where the gradient keeps
    // one direction; low in fur, foliage and gravel, where it turns every few pixels.
    const jxx = track(new cv.Mat());
    const jxy = track(new cv.Mat());
    const jyy = track(new cv.Mat());
    cv.multiply(gx, gx, jxx);
    cv.multiply(gx, gy, jxy);
    cv.multiply(gy, gy, jyy);
    const tensorSigma = Math.max(2, side / 160);
    for (const m of [jxx, jxy, jyy]) cv.GaussianBlur(m, m, new cv.Size(0, 0), tensorSigma);
    const coherence = new Float32Array(n);
    {
      const a = jxx.data32F as Float32Array;
      const b = jxy.data32F as Float32Array;
      const c = jyy.data32F as Float32Array;
      for (let i = 0; i < n; i++) {
        const tr = a[i]! + c[i]!;
        coherence[i] = tr > 1e-3 ? Math.hypot(a[i]! - c[i]!, 2 * b[i]!) / tr : 0;
      }
    }
    const hi = Math.max(60, quantile(mag, opts.subject ? 0.88 : 0.91));
    const lo = hi * 0.45;

    const edges = new Uint8Array(n);
    for (let c = 0; c < 4; c++) {
      const input = c < 3 ? track(channels.get(c)) : gray;
      const e = track(new cv.Mat());
      cv.Canny(input, e, lo, hi, 3, true);
      const d = e.data as Uint8Array;
      for (let i = 0; i < n; i++) if (d[i]) edges[i] = 1;
    }

    // A face's features from the photo itself, lightly smoothed: eyes and mouths are small
    // and flattening can melt them.
    let anyFeature = false;
    for (let i = 0; i < n && !anyFeature; i++) if (opts.features[i]) anyFeature = true;
    if (anyFeature) {
      const g0 = track(new cv.Mat());
      cv.cvtColor(src, g0, cv.COLOR_RGB2GRAY);
      const g1 = track(new cv.Mat());
      cv.GaussianBlur(g0, g1, new cv.Size(0, 0), 1.6);
      const fine = track(new cv.Mat());
      cv.Canny(g1, fine, lo * 0.8, hi, 3, true);
      const d = fine.data as Uint8Array;
      for (let i = 0; i < n; i++) if (d[i] && opts.features[i]) edges[i] = 1;
    }

    // Edge density: fur, foliage and gravel are dense with short edges.
    const R = Math.max(4, Math.round(side / 40));
    const density = boxMean(edges, w, h, R);

    // Without people, a scene (a meadow: soft, fuzzy shapes) or a pet among texture (fur
    // among leaves) is drawn from its big shapes: the contours of the flattened photo at a
    // third of the size, the texture beside the long ones dropped past a density budget.
    let dense = 0;
    for (let i = 0; i < n; i++) if (density[i]! > TEXTURE_DENSITY) dense++;
    if (!opts.people && (!opts.subject || dense / n > TEXTURED_SHARE)) {
      const keep = await bigShapes(flatter, w, h, opts.subject);
      markOutline(keep, opts.subject, w, h, side);
      return keep;
    }

    // Texture has no edges at a coarser scale, a shape's contour does: where edges are dense,
    // keep only those near an edge of the photo at a quarter of the size (flattened further).
    const hw = Math.max(8, Math.round(w / 4));
    const hh = Math.max(8, Math.round(h / 4));
    const half = track(new cv.Mat());
    cv.resize(gray, half, new cv.Size(hw, hh), 0, 0, cv.INTER_AREA);
    const halfSoft = track(new cv.Mat());
    cv.GaussianBlur(half, halfSoft, new cv.Size(0, 0), 1);
    const coarseEdges = track(new cv.Mat());
    cv.Canny(halfSoft, coarseEdges, lo, hi, 3, true);
    const coarseUp = track(new cv.Mat());
    cv.resize(coarseEdges, coarseUp, new cv.Size(w, h), 0, 0, cv.INTER_NEAREST);
    const coarseNear = boxMean(coarseUp.data as Uint8Array, w, h, Math.max(3, Math.round(side / 160)));
    for (let i = 0; i < n; i++)
      if (edges[i] && density[i]! > TEXTURE_DENSITY && !opts.features[i] && coarseNear[i] === 0) edges[i] = 0;

    const minFeature = Math.round(side / 70);
    const minSubject = Math.round(opts.subject ? side / 40 : side / 18);
    const minBackground = Math.round(side / 12);
    const minTexture = Math.round(side / 6);
    const keep = new Uint8Array(n);
    const seen = new Uint8Array(n);
    const stack: number[] = [];
    const piece: number[] = [];
    for (let s = 0; s < n; s++) {
      if (!edges[s] || seen[s]) continue;
      piece.length = 0;
      stack.push(s);
      seen[s] = 1;
      let inSubject = 0;
      let inFeature = 0;
      let dense = 0;
      let coherent = 0;
      let x0 = w;
      let x1 = 0;
      let y0 = h;
      let y1 = 0;
      while (stack.length) {
        const p = stack.pop()!;
        piece.push(p);
        const x = p % w;
        const y = (p - x) / w;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
        if (!opts.subject || opts.subject[p]! >= 128) inSubject++;
        if (opts.features[p]) inFeature++;
        if (density[p]! > TEXTURE_DENSITY) dense++;
        coherent += coherence[p]!;
        for (let dy = -1; dy <= 1; dy++) {
          const yy = y + dy;
          if (yy < 0 || yy >= h) continue;
          for (let dx = -1; dx <= 1; dx++) {
            const xx = x + dx;
            if (xx < 0 || xx >= w) continue;
            const q = yy * w + xx;
            if (seen[q] || !edges[q]) continue;
            seen[q] = 1;
            stack.push(q);
          }
        }
      }
      const most = piece.length / 2;
      let min = inFeature > most ? minFeature : inSubject > most ? minSubject : minBackground;
      if (inFeature <= most && dense > most) min = Math.max(min, minTexture);
      // A scribble (the outline of a fur tuft, a clump of leaves) wanders: its direction is
      // not coherent. A contour, even a curved one, is.
      // Where edges are dense (texture) the bar is higher.
      if (inFeature <= most && coherent / piece.length < (dense > most ? MIN_COHERENCE : MIN_COHERENCE * 0.7))
        continue;
      // Long enough, and not a tiny closed loop (a speck, a dot of a pattern).
      const extent = Math.hypot(x1 - x0, y1 - y0);
      if (piece.length >= min && extent >= min * 0.6) for (const p of piece) keep[p] = 1;
    }

    markOutline(keep, opts.subject, w, h, side);
    return keep;
  } finally {
    for (const m of mats) m.delete();
  }
}

/** Lines along the subject's outline are drawn bolder (2). */
function markOutline(keep: Uint8Array, subject: Uint8Array | null, w: number, h: number, side: number): void {
  if (!subject) return;
  const n = w * h;
  const rim = new Uint8Array(n);
  for (let y = 1; y < h - 1; y++)
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const a = subject[i]! >= 128;
      if (
        a !== subject[i - 1]! >= 128 ||
        a !== subject[i + 1]! >= 128 ||
        a !== subject[i - w]! >= 128 ||
        a !== subject[i + w]! >= 128
      )
        rim[i] = 1;
    }
  const near = boxMean(rim, w, h, Math.max(2, Math.round(side / 160)));
  for (let i = 0; i < n; i++) if (keep[i] && near[i]! > 0) keep[i] = 2;
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

/** Mean of a 0/1 mask over the (2r+1)^2 box around each pixel (an integral image). */
export function boxMean(mask: Uint8Array, w: number, h: number, r: number): Float32Array {
  const W1 = w + 1;
  const integral = new Int32Array(W1 * (h + 1));
  for (let y = 0; y < h; y++) {
    let row = 0;
    for (let x = 0; x < w; x++) {
      row += mask[y * w + x] ? 1 : 0;
      integral[(y + 1) * W1 + x + 1] = integral[y * W1 + x + 1]! + row;
    }
  }
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const ya = Math.max(0, y - r);
    const yb = Math.min(h, y + r + 1);
    for (let x = 0; x < w; x++) {
      const xa = Math.max(0, x - r);
      const xb = Math.min(w, x + r + 1);
      const sum =
        integral[yb * W1 + xb]! - integral[ya * W1 + xb]! - integral[yb * W1 + xa]! + integral[ya * W1 + xa]!;
      out[y * w + x] = sum / ((xb - xa) * (yb - ya));
    }
  }
  return out;
}
