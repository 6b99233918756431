import type { HeadGeometry } from "../../shared/hair/hair-region";
import { valueNoise } from "../../shared/noise";

/**
 * The pixie cut's outline: a close cap over the skull, from the mesh. Above the eyes, an
 * ellipse a little wider than the face oval reaching a little above the crown; below them,
 * short sideburns hugging the oval down to about the nose. The edge is feathered and
 * slightly ragged (cut hair is not a clean curve).
 */

/** Cap sizes, in face widths (sideways) and forehead-to-chin heights (up and down). */
export const CAP = { side: 0.1, crown: 0.42, sideburn: 0.3 } as const;

const smoothstep = (a: number, b: number, x: number) => {
  const t = Math.min(1, Math.max(0, (x - a) / (b - a)));
  return t * t * (3 - 2 * t);
};

/** 0..1 per pixel: inside the cap. `half[y]` is the face oval's half-width on row y (0 off it). */
export function capMask(
  head: HeadGeometry,
  half: Float32Array,
  width: number,
  height: number,
  seed: number,
): Float32Array {
  const { cx, top, eyes, chin, fw, fh } = head;
  const a = fw * (0.5 + CAP.side);
  const crown = top - fh * CAP.crown;
  const b = eyes - crown;
  const bottom = eyes + (chin - eyes) * CAP.sideburn;
  const feather = Math.max(1.5, fw * 0.02);
  const cap = new Float32Array(width * height);
  const y0 = Math.max(0, Math.floor(crown - feather * 3));
  const y1 = Math.min(height - 1, Math.ceil(bottom + feather));
  for (let y = y0; y <= y1; y++)
    for (
      let x = Math.max(0, Math.floor(cx - a * 1.2));
      x <= Math.min(width - 1, Math.ceil(cx + a * 1.2));
      x++
    ) {
      const dx = x - cx;
      const dy = y - eyes;
      // Ragged edge: the radius wobbles a few percent with the angle around the head.
      const angle = Math.atan2(dy, dx);
      const wobble = 1 + 0.06 * (valueNoise((angle + Math.PI) * 9, 0.5, seed) - 0.5);
      let inside: number;
      if (dy <= 0) {
        // Distance past the ellipse, in pixels (approximately), with the wobble.
        const r = Math.hypot(dx / a, dy / b);
        inside = 1 - smoothstep(-feather, feather, (r - wobble) * Math.min(a, b));
      } else {
        // Sideburns: a little beyond the oval, tapering to it by `bottom`.
        const t = dy / Math.max(1, bottom - eyes);
        const reach = Math.max(half[y]!, fw * 0.3) + fw * CAP.side * (1 - t) * wobble;
        inside =
          (1 - smoothstep(reach - feather, reach + feather, Math.abs(dx))) * (1 - smoothstep(0.8, 1, t));
      }
      cap[y * width + x] = inside;
    }
  return cap;
}
