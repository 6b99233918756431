import type { RawImage } from "./image-io";
import type { Face } from "../vision/human";

/**
 * Kawaii blush: a soft pink oval on each cheek, placed from the face mesh (MediaPipe indices:
 * 50/205 and 280/425 sit on the cheeks, 234/454 at the face's sides). Flat colour with a
 * one-pixel soft rim, so it adds next to no colours to a flat cartoon.
 */
const CHEEKS = [
  [50, 205],
  [280, 425],
] as const;
const PINK: readonly [number, number, number] = [255, 128, 150];
const STRENGTH = 0.4;

/**
 * Paints blush on a 3-channel image. `dx`, `dy` move the mesh (source pixels) into the
 * image's frame and `scale` resizes it; `inside` says where painting is allowed.
 */
export function addBlush(
  img: RawImage,
  face: Face,
  map: { dx: number; dy: number; scale: number },
  inside: (i: number) => boolean,
): void {
  if (img.channels !== 3) throw new Error("addBlush: expects 3 channels");
  const at = (k: number): [number, number] => {
    const p = face.mesh[k]!;
    return [(p[0] + map.dx) * map.scale, (p[1] + map.dy) * map.scale];
  };
  const [lx, ly] = at(234);
  const [rx, ry] = at(454);
  const faceWidth = Math.hypot(rx - lx, ry - ly);
  const rw = faceWidth * 0.11;
  const rh = faceWidth * 0.065;
  const { width, height, data } = img;
  for (const [a, b] of CHEEKS) {
    const [ax, ay] = at(a);
    const [bx, by] = at(b);
    const cx = (ax + bx) / 2;
    const cy = (ay + by) / 2 + rh * 0.3;
    for (let y = Math.max(0, Math.floor(cy - rh - 1)); y <= Math.min(height - 1, Math.ceil(cy + rh + 1)); y++)
      for (
        let x = Math.max(0, Math.floor(cx - rw - 1));
        x <= Math.min(width - 1, Math.ceil(cx + rw + 1));
        x++
      ) {
        const i = y * width + x;
        if (!inside(i)) continue;
        // Distance outside the oval in pixels (approximately), for the soft rim.
        const r = Math.hypot((x + 0.5 - cx) / rw, (y + 0.5 - cy) / rh);
        const cover = Math.min(1, Math.max(0, (1 - r) * rh + 0.5));
        if (cover <= 0) continue;
        const t = STRENGTH * cover;
        for (let c = 0; c < 3; c++) data[i * 3 + c] = Math.round(data[i * 3 + c]! * (1 - t) + PINK[c]! * t);
      }
  }
}
