import sharp from "sharp";
import { texturedScene } from "./test-utils";

/**
 * A seeded synthetic animal among foliage for the line effects' tests (800 x 600): the
 * textured grass scene of shared/test-utils.ts with a plain grey-brown animal on top (a body
 * ellipse, a round head, two round ears) with two dark eyes in the head's upper half. Returns
 * the photo (RGB, PNG), the animal's mask (0/255) and the eyes' centres.
 */
export async function animalScene() {
  const [w, h] = [800, 600];
  const scene = await texturedScene(w, h, 1, 23);
  const { data } = await sharp(scene.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const mask = new Uint8Array(w * h);
  const inside = (x: number, y: number) =>
    ((x - 380) / 230) ** 2 + ((y - 390) / 130) ** 2 <= 1 ||
    Math.hypot(x - 560, y - 240) <= 105 ||
    Math.hypot(x - 495, y - 150) <= 35 ||
    Math.hypot(x - 625, y - 150) <= 35;
  const eyes: Array<[number, number]> = [
    [525, 225],
    [595, 225],
  ];
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      if (!inside(x, y)) continue;
      const i = y * w + x;
      mask[i] = 255;
      const eye = eyes.some(([ex, ey]) => Math.hypot(x - ex, y - ey) <= 13);
      const c = eye ? [30, 22, 20] : [150, 138, 125];
      for (let k = 0; k < 3; k++) data[i * 3 + k] = c[k]!;
    }
  const bytes = await sharp(data, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
  return { w, h, rgb: data, bytes, mask, eyes, inside };
}

/**
 * Share of the animal's outline (mask boundary pixels, off the frame) with a drawn pixel
 * (`drawn(x, y)`) within `reach` px.
 */
export function outlineCovered(
  mask: Uint8Array,
  w: number,
  h: number,
  reach: number,
  drawn: (x: number, y: number) => boolean,
): number {
  let total = 0;
  let hit = 0;
  for (let y = 1; y < h - 1; y++)
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      if (!mask[i] || (mask[i - 1] && mask[i + 1] && mask[i - w] && mask[i + w])) continue;
      total++;
      let found = false;
      for (let dy = -reach; dy <= reach && !found; dy++)
        for (let dx = -reach; dx <= reach && !found; dx++) found = drawn(x + dx, y + dy);
      if (found) hit++;
    }
  return hit / total;
}

/** Whether the paper reachable from the picture's corner (4-connected, through `paper(x, y)`) reaches (x, y). */
export function reachable(
  w: number,
  h: number,
  paper: (x: number, y: number) => boolean,
  x: number,
  y: number,
) {
  const seen = new Uint8Array(w * h);
  const stack = [0];
  seen[0] = 1;
  while (stack.length) {
    const p = stack.pop()!;
    if (p === y * w + x) return true;
    const px = p % w;
    const py = (p - px) / w;
    for (const [qx, qy] of [
      [px - 1, py],
      [px + 1, py],
      [px, py - 1],
      [px, py + 1],
    ] as const) {
      if (qx < 0 || qy < 0 || qx >= w || qy >= h) continue;
      const q = qy * w + qx;
      if (!seen[q] && paper(qx, qy)) {
        seen[q] = 1;
        stack.push(q);
      }
    }
  }
  return false;
}

/** The area of the paper (4-connected through `paper(x, y)`) around (x, y), counted up to `cap`. */
export function paperArea(
  w: number,
  h: number,
  paper: (x: number, y: number) => boolean,
  x: number,
  y: number,
  cap = 1e6,
) {
  if (!paper(x, y)) return 0;
  const seen = new Uint8Array(w * h);
  const stack = [y * w + x];
  seen[y * w + x] = 1;
  let area = 0;
  while (stack.length && area < cap) {
    const p = stack.pop()!;
    area++;
    const px = p % w;
    const py = (p - px) / w;
    for (const [qx, qy] of [
      [px - 1, py],
      [px + 1, py],
      [px, py - 1],
      [px, py + 1],
    ] as const) {
      if (qx < 0 || qy < 0 || qx >= w || qy >= h) continue;
      const q = qy * w + qx;
      if (!seen[q] && paper(qx, qy)) {
        seen[q] = 1;
        stack.push(q);
      }
    }
  }
  return area;
}
