/**
 * For the hair effects' tests: how much of the skin (pixels coloured like the cheeks, in the
 * photo before the effect) inside a box changed. Test-only: nothing in the engine imports it.
 */

export interface Rgb8 {
  data: Buffer | Uint8Array;
  width: number;
  height: number;
}

const at = (img: Rgb8, x: number, y: number) => {
  const i = (Math.round(y) * img.width + Math.round(x)) * 3;
  return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
};
const dist = (a: number[], b: number[]) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);
const chroma = (p: number[]) => {
  const s = p[0]! + p[1]! + p[2]! + 3;
  return [(300 * (p[0]! + 1)) / s, (300 * (p[1]! + 1)) / s, 0];
};
const luma = (p: number[]) => 0.299 * p[0]! + 0.587 * p[1]! + 0.114 * p[2]!;

/**
 * `points`: where to sample the skin in `src` (cheeks, nose bridge). Of the pixels in the box
 * [x0, x1) x [y0, y1) coloured like that skin (brightness within 30 %, colour within
 * `tolerance` once scaled to the same brightness: 30 by default; stricter where the hair is
 * nearly skin-coloured, as red hair is), the share that moved by more than 12 in `out`, and
 * their count.
 */
export function skinChanged(
  src: Rgb8,
  out: Rgb8,
  points: Array<readonly [number, number]>,
  box: { x0: number; y0: number; x1: number; y1: number },
  tolerance = 30,
): { share: number; n: number } {
  const samples: number[][] = [];
  for (const [px, py] of points)
    for (let dy = -3; dy <= 3; dy++) for (let dx = -3; dx <= 3; dx++) samples.push(at(src, px + dx, py + dy));
  const med = (c: number) => samples.map((p) => p[c]!).sort((a, b) => a - b)[samples.length >> 1]!;
  const skin = [med(0), med(1), med(2)];
  const skinY = luma(skin);
  let n = 0;
  let changed = 0;
  for (let y = Math.max(0, Math.round(box.y0)); y < Math.min(src.height, box.y1); y++)
    for (let x = Math.max(0, Math.round(box.x0)); x < Math.min(src.width, box.x1); x++) {
      const p = at(src, x, y);
      const k = luma(p) / Math.max(1, skinY);
      if (Math.abs(k - 1) > 0.3) continue;
      if (
        dist(
          p,
          skin.map((v) => v * k),
        ) > tolerance
      )
        continue;
      n++;
      if (dist(p, at(out, x, y)) > 12) changed++;
    }
  return { share: changed / Math.max(1, n), n };
}

/**
 * For the hair effects' tests: how the cheek behind a lock came out. `lock`, `oval` and
 * `hairAlpha` from the hair region of `src` (the photo before the effect, at `out`'s size,
 * offset by `dx, dy` into `out`); `eyes`: the eye line. Of the lock's pixels inside the face
 * oval below the eyes (a few pixels in from its edge): `hairLike`, the share still coloured
 * (chromaticity) more like the photo's hair than like its uncovered cheek; `skinDist`, the
 * distance of their median chromaticity (x 300) from the uncovered cheek's, and the hair's; and `seam`, the mean brightness step across the
 * lock's inner edge (a few pixels either side) against the same step inside the uncovered cheek.
 */
export function cheekCheck(
  src: Rgb8,
  out: Rgb8,
  region: { lock: Uint8Array; oval: Uint8Array; hairAlpha: Float32Array; eyes: number },
  dx = 0,
  dy = 0,
): { n: number; hairLike: number; skinDist: number; hairDist: number; seam: number; cheekStep: number } {
  const { width, height } = src;
  const { lock, oval, hairAlpha, eyes } = region;
  const medianOf = (pts: number[][]) =>
    [0, 1, 2].map((c) => pts.map((p) => p[c]!).sort((a, b) => a - b)[pts.length >> 1] ?? 0);
  const hairPts: number[][] = [];
  const cheekPts: number[][] = [];
  const inner = (x: number, y: number, r: number) => {
    for (let v = -r; v <= r; v++)
      for (let u = -r; u <= r; u++) {
        const xx = x + u;
        const yy = y + v;
        if (xx < 0 || yy < 0 || xx >= width || yy >= height || !oval[yy * width + xx]) return false;
      }
    return true;
  };
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (hairAlpha[i]! > 0.6) hairPts.push(at(src, x, y));
      else if (y > eyes && oval[i] && !lock[i] && inner(x, y, 4)) cheekPts.push(at(src, x, y));
    }
  const hair = medianOf(hairPts);
  const cheek = medianOf(cheekPts);
  const shifted = { ...out, width: out.width, height: out.height };
  const o = (x: number, y: number) => at(shifted, x + dx, y + dy);
  let n = 0;
  let hairLike = 0;
  const revealed: number[][] = [];
  for (let y = Math.ceil(eyes); y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!lock[i] || !inner(x, y, 4)) continue;
      const p = o(x, y);
      n++;
      revealed.push(p);
      // (By chromaticity: a cheek in shade is darker, not more hair-coloured.)
      if (dist(chroma(p), chroma(hair)) < dist(chroma(p), chroma(cheek))) hairLike++;
    }
  // The step across the lock's inner edge (towards the face's middle) on each row, against
  // the same step measured on the uncovered cheek a little further in.
  const step = (x: number, y: number) => Math.abs(luma(o(x + 3, y)) - luma(o(x - 3, y)));
  let seam = 0;
  let cheekStep = 0;
  let rows = 0;
  for (let y = Math.ceil(eyes); y < height; y++) {
    let edge = -1;
    for (let x = 1; x < width; x++)
      if (lock[y * width + x] && !lock[y * width + x - 1] && oval[y * width + x - 1]) {
        edge = x;
        break;
      }
    if (edge < 12 || !inner(edge - 10, y, 4) || !inner(edge + 4, y, 3)) continue;
    seam += step(edge, y);
    cheekStep += step(edge - 8, y);
    rows++;
  }
  return {
    n,
    hairLike: hairLike / Math.max(1, n),
    skinDist: revealed.length ? dist(chroma(medianOf(revealed)), chroma(cheek)) : Infinity,
    hairDist: dist(chroma(hair), chroma(cheek)),
    seam: seam / Math.max(1, rows),
    cheekStep: cheekStep / Math.max(1, rows),
  };
}
