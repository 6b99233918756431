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
