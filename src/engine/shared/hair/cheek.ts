import type { RawImage } from "../image-io";
import { fillFromBackground } from "./fill-background";
import type { HairRegion } from "./hair-region";
import { blurred, dilate } from "./skin-guard";

/**
 * The cheek behind a lock (hair hanging over one side of the face): the hidden strip of the
 * face oval rebuilt from the other side of the same face, row by row, mirrored about the
 * face's midline and stretched to the oval's width on each side (a slightly turned face is
 * wider on one side), so the hidden side gets the visible side's own shading profile (the
 * cheek darkening towards the jaw and the face's edge), its grain and, where the lock hid a
 * brow's end, the other brow's end. The mirrored skin is brought to this side's light by a
 * smooth per-channel gain measured on the uncovered skin a little away from the lock. The
 * skin right beside the lock, darkened by its shadow, is rebuilt too, fading into the photo.
 */

export interface Cheek {
  /** The face's skin with the lock taken away (the photo elsewhere in the oval). */
  skin: Buffer;
  /** 1 where {@link Cheek.skin} is the mirrored, relit skin (no extra grain to add). */
  mirrored: Uint8Array;
  /**
   * 0..1: the face, its outline where a lock hid it mirrored from the uncovered side (the
   * mesh's guess there is a stiff, nearly straight line); `null`: the oval as it is.
   */
  face: Float32Array | null;
}

const cache = new WeakMap<HairRegion, Float32Array>();

/**
 * 0..1: where the effects show the rebuilt cheek instead of the photo: the lock, and the
 * face's skin beside it in its shadow (fading out over about 0.05 face widths; the eyes,
 * nostrils and lips are never part of it, a brow's end under the lock is).
 */
export function lockShade(hair: HairRegion): Float32Array {
  const cached = cache.get(hair);
  if (cached) return cached;
  const n = hair.lock.length;
  const width = n / hair.half.length;
  const height = hair.half.length;
  const { fw } = hair.head;
  let any = false;
  for (let i = 0; i < n && !any; i++) if (hair.lock[i]) any = true;
  const out = new Float32Array(n);
  if (any) {
    const band = blurred(hair.lock, width, height, Math.max(2, Math.round(fw * 0.05)));
    // (The nostrils and lips stay the photo's; the brows and an eye's outer corner beside the
    // lock, where its strands cross them, are the other side's.)
    const low = Math.round(hair.head.eyes + hair.head.fh * 0.12) * width;
    const kept = new Uint8Array(n);
    for (let i = Math.max(0, low); i < n; i++) kept[i] = hair.features[i]!;
    const feat = blurred(kept, width, height, Math.max(1, Math.round(fw * 0.01)));
    for (let i = 0; i < n; i++)
      out[i] = hair.lock[i]
        ? 1
        : hair.oval[i]
          ? Math.min(1, band[i]! * 3) * (1 - Math.min(1, feat[i]! * 2))
          : 0;
  }
  cache.set(hair, out);
  return out;
}

/** The midline's x on row `y` (linear between the mesh's midline points), or `fallback`. */
function midline(mid: Array<[number, number]> | undefined, y: number, fallback: number): number {
  if (!mid || mid.length < 2) return fallback;
  if (y <= mid[0]![1]) return mid[0]![0];
  for (let k = 1; k < mid.length; k++) {
    const [x1, y1] = mid[k]!;
    if (y <= y1) {
      const [x0, y0] = mid[k - 1]!;
      return y1 > y0 ? x0 + ((y - y0) / (y1 - y0)) * (x1 - x0) : x1;
    }
  }
  return mid[mid.length - 1]![0];
}

/**
 * The face's skin inside the oval with the lock (and its shadow, {@link lockShade}) taken
 * away. `skinKnown`: the uncovered skin (no features, no hair) the rest is continued from
 * where the mirrored side is itself hidden.
 */
export function cheekBehindLock(src: RawImage, hair: HairRegion, skinKnown: Uint8Array): Cheek {
  const { width, height } = src;
  const n = width * height;
  const { fw, cx } = hair.head;
  const d = src.data;
  const shade = lockShade(hair);
  const mirrored = new Uint8Array(n);
  // Where the rebuilt skin is needed at all.
  let any = false;
  for (let i = 0; i < n && !any; i++) if (shade[i]! > 0 && hair.oval[i]) any = true;
  if (!any) return { skin: fillFromBackground(d, skinKnown, width, height), mirrored, face: null };

  // Each row's oval from its left to its right edge, and the mirrored column of a pixel.
  const xl = new Int32Array(height).fill(-1);
  const xr = new Int32Array(height).fill(-1);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if (hair.oval[y * width + x]) {
        if (xl[y]! < 0) xl[y] = x;
        xr[y] = x;
      }
  const mids = new Float32Array(height);
  for (let y = 0; y < height; y++)
    mids[y] = Math.min(xr[y]! - 1, Math.max(xl[y]! + 1, midline(hair.head.mid, y, cx)));
  let hiddenRow = new Uint8Array(height);
  // Where the lock hides a side's edge, that edge is the other side's, mirrored (scaled by
  // how much wider the mesh makes this side overall: a face turned a little), blended in
  // and out along the rows so the outline bends smoothly into the mesh's where it shows.
  {
    const ratios: number[] = [];
    for (let y = 0; y < height; y++)
      if (xl[y]! >= 0 && xr[y]! - xl[y]! > 4)
        ratios.push((xr[y]! - mids[y]!) / Math.max(1, mids[y]! - xl[y]!));
    ratios.sort((a, b) => a - b);
    const s = ratios.length ? ratios[ratios.length >> 1]! : 1;
    const edge = Math.max(2, Math.round(fw * 0.02));
    const hid = (y: number, x0: number, x1: number) => {
      for (let x = Math.max(0, x0); x <= Math.min(width - 1, x1); x++) if (hair.lock[y * width + x]) return 1;
      return 0;
    };
    const tl = new Float32Array(height);
    hiddenRow = new Uint8Array(height);
    const tr = new Float32Array(height);
    for (let y = 0; y < height; y++) {
      const l = xl[y]!;
      const r = xr[y]!;
      if (l < 0) continue;
      const m = mids[y]!;
      const hl = hid(y, l, l + edge);
      const hr = hid(y, r - edge, r);
      hiddenRow[y] = hl !== hr ? 1 : 0;
      tl[y] = hl && !hr ? m - (r - m) / s : l;
      tr[y] = hr && !hl ? m + (m - l) * s : r;
    }
    const k = Math.max(2, Math.round(hair.head.fh * 0.04));
    for (const [t, ext] of [
      [tl, xl],
      [tr, xr],
    ] as const) {
      const sm = new Float32Array(height);
      for (let y = 0; y < height; y++) {
        if (ext[y]! < 0) continue;
        let sum = 0;
        let c = 0;
        for (let v = Math.max(0, y - k); v <= Math.min(height - 1, y + k); v++)
          if (ext[v]! >= 0) {
            sum += t[v]!;
            c++;
          }
        sm[y] = sum / c;
      }
      for (let y = 0; y < height; y++) if (ext[y]! >= 0) ext[y] = Math.round(sm[y]!);
    }
  }
  const face = new Float32Array(n);
  for (let y = 0; y < height; y++) {
    const l = xl[y]!;
    const r = xr[y]!;
    if (l < 0) continue;
    for (let x = Math.max(0, l - 1); x <= Math.min(width - 1, r + 1); x++)
      face[y * width + x] = Math.min(1, Math.max(0, Math.min(x - l + 1, r + 1 - x)));
  }
  const mirror = (x: number, y: number): number => {
    const l = xl[y]!;
    const r = xr[y]!;
    if (l < 0 || r - l < 4) return -1;
    const m = mids[y]!;
    const xs =
      x >= m ? m - ((x - m) / Math.max(1, r - m)) * (m - l) : m + ((m - x) / Math.max(1, m - l)) * (r - m);
    const j = Math.round(xs);
    return j >= l && j <= r && j >= 0 && j < width ? y * width + j : -1;
  };
  // A mirrored pixel is usable when it is the face's own uncovered skin (or a feature: the
  // other brow's end), away from any lock and its shadow.
  const lockNear = dilate(hair.lock, width, height, Math.max(2, Math.round(fw * 0.04)));
  const usable = (j: number) =>
    j >= 0 && hair.oval[j] === 1 && !lockNear[j] && (hair.skin[j] === 1 || hair.features[j] === 1);

  // The light on this side against the other: per channel, the ratio of the local mean
  // colours, measured on uncovered skin a little away from the lock (beyond its shadow),
  // continued smoothly over the hidden strip.
  const lowR = Math.max(2, Math.round(fw * 0.03));
  const low = [0, 1, 2].map((ch) => {
    const c = new Float32Array(n);
    for (let i = 0; i < n; i++) c[i] = d[i * 3 + ch]!;
    return blurred(c, width, height, lowR);
  });
  const inner = dilate(hair.lock, width, height, Math.max(3, Math.round(fw * 0.08)));
  const outer = dilate(hair.lock, width, height, Math.max(6, Math.round(fw * 0.25)));
  const gain = Buffer.alloc(n * 3);
  const gainKnown = new Uint8Array(n);
  const ratios: number[][] = [[], [], []];
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!outer[i] || inner[i] || !skinKnown[i]) continue;
      const j = mirror(x, y);
      if (!usable(j) || !skinKnown[j]) continue;
      gainKnown[i] = 1;
      for (let ch = 0; ch < 3; ch++) {
        const g = low[ch]![i]! / Math.max(1, low[ch]![j]!);
        ratios[ch]!.push(g);
        gain[i * 3 + ch] = Math.max(0, Math.min(255, Math.round(g * 128)));
      }
    }
  // (No skin to measure on: the median of none is 1, the mirrored side as it is.)
  const median = (a: number[]) => (a.length ? a.sort((p, q) => p - q)[a.length >> 1]! : 1);
  const flat = ratios.map(median);
  let gainField: Float32Array[];
  if (ratios[0]!.length < 30) gainField = flat.map((g) => new Float32Array(n).fill(g));
  else {
    const filled = fillFromBackground(gain, gainKnown, width, height);
    gainField = [0, 1, 2].map((ch) => {
      const c = new Float32Array(n);
      // (Bounded near the median: one odd patch of skin does not tint the cheek.)
      for (let i = 0; i < n; i++)
        c[i] = Math.max(flat[ch]! * 0.85, Math.min(flat[ch]! * 1.15, filled[i * 3 + ch]! / 128));
      return blurred(c, width, height, Math.max(2, Math.round(fw * 0.06)));
    });
  }

  // The rebuilt skin: the mirrored pixel, relit; where that pixel is itself hidden, the skin
  // around continued (push-pull) as before.
  const rec = Buffer.from(d);
  const recKnown = Uint8Array.from(skinKnown);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      // (The lock and its shadow; and past the mesh's oval, out to the mirrored outline.)
      if (!(face[i]! > 0) || (!(shade[i]! > 0) && hair.oval[i])) continue;
      recKnown[i] = 0;
      const j = mirror(x, y);
      if (!usable(j)) continue;
      // (Towards a hidden outline the cheek turns away from the light: a little darker.)
      const out = x >= mids[y]! ? xr[y]! - x : x - xl[y]!;
      const turn = hiddenRow[y] ? 1 - 0.18 * (1 - Math.min(1, out / (fw * 0.07))) ** 2 : 1;
      for (let ch = 0; ch < 3; ch++)
        rec[i * 3 + ch] = Math.max(0, Math.min(255, Math.round(d[j * 3 + ch]! * gainField[ch]![i]! * turn)));
      recKnown[i] = 1;
      mirrored[i] = 1;
    }
  const filled = fillFromBackground(rec, recKnown, width, height);
  for (let i = 0; i < n; i++)
    if (mirrored[i]) for (let ch = 0; ch < 3; ch++) filled[i * 3 + ch] = rec[i * 3 + ch]!;
  return { skin: filled, mirrored, face };
}
