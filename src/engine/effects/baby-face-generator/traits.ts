import type { RawImage } from "../../shared/image-io";
import type { Face } from "../../vision/human";
import { LEFT_EYE, RIGHT_EYE } from "./landmarks";
import { inPolygon } from "../../shared/mask";

/**
 * What a baby portrait takes from each parent's photo: skin tone (cheeks), hair colour
 * (above the forehead), eye colour (the iris, darker than the white of the eye) and face
 * shape (width over height). Colours are medians of small regions, so a highlight, a beard
 * shadow or glasses' rims do not decide them.
 */
export type Rgb = [number, number, number];

export interface Traits {
  skin: Rgb;
  /** Null when the head top shows no hair distinct from the skin and background (bald, a crop). */
  hair: Rgb | null;
  eye: Rgb;
  /** Face width over its height (cheek to cheek, forehead to chin). */
  aspect: number;
}

const luma = (c: Rgb) => 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];

function medianColour(samples: Rgb[]): Rgb | null {
  if (!samples.length) return null;
  const pick = (k: 0 | 1 | 2) => {
    const v = samples.map((s) => s[k]).sort((a, b) => a - b);
    return v[v.length >> 1]!;
  };
  return [pick(0), pick(1), pick(2)];
}

function at(img: RawImage, x: number, y: number): Rgb | null {
  const xi = Math.round(x);
  const yi = Math.round(y);
  if (xi < 0 || yi < 0 || xi >= img.width || yi >= img.height) return null;
  const i = (yi * img.width + xi) * img.channels;
  return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
}

/** Pixels in a disc of radius r around (x, y), on a coarse lattice. */
function disc(img: RawImage, x: number, y: number, r: number): Rgb[] {
  const out: Rgb[] = [];
  const step = Math.max(1, r / 4);
  for (let dy = -r; dy <= r; dy += step)
    for (let dx = -r; dx <= r; dx += step) {
      if (dx * dx + dy * dy > r * r) continue;
      const c = at(img, x + dx, y + dy);
      if (c) out.push(c);
    }
  return out;
}

export function traitsOf(img: RawImage, face: Face): Traits {
  const m = face.mesh;
  const p = (i: number): [number, number] => [m[i]![0], m[i]![1]];
  const width = Math.hypot(m[234]![0] - m[454]![0], m[234]![1] - m[454]![1]);
  const height = Math.hypot(m[10]![0] - m[152]![0], m[10]![1] - m[152]![1]);
  const r = Math.max(2, width * 0.05);

  // Skin: both cheeks and the forehead, where beards and glasses rarely are.
  const skin = medianColour([
    ...disc(img, ...p(205), r),
    ...disc(img, ...p(425), r),
    ...disc(img, ...p(151), r),
  ])!;

  // Hair: a band above the forehead (along the face's upward direction), if it differs from skin.
  const up: [number, number] = [(m[10]![0] - m[152]![0]) / height, (m[10]![1] - m[152]![1]) / height];
  const hairSamples: Rgb[] = [];
  for (const t of [0.08, 0.14, 0.2])
    for (const s of [-0.25, 0, 0.25]) {
      const x = m[10]![0] + up[0] * height * t - up[1] * width * s;
      const y = m[10]![1] + up[1] * height * t + up[0] * width * s;
      hairSamples.push(...disc(img, x, y, r));
    }
  const hairGuess = medianColour(hairSamples);
  const distinct = hairGuess && Math.hypot(...(hairGuess.map((v, k) => v - skin[k]!) as Rgb)) > 40;
  const hair = distinct ? hairGuess : null;

  // Eye colour: the darker half of each eye outline's pixels (iris and pupil, not the white).
  const eyeSamples: Rgb[] = [];
  for (const outline of [RIGHT_EYE, LEFT_EYE]) {
    const poly = outline.map(p);
    const xs = poly.map((q) => q[0]);
    const ys = poly.map((q) => q[1]);
    const inside: Rgb[] = [];
    for (let y = Math.min(...ys); y <= Math.max(...ys); y += 1)
      for (let x = Math.min(...xs); x <= Math.max(...xs); x += 1) {
        if (!inPolygon(x, y, poly)) continue;
        const c = at(img, x, y);
        if (c) inside.push(c);
      }
    inside.sort((a, b) => luma(a) - luma(b));
    eyeSamples.push(...inside.slice(0, Math.max(1, inside.length >> 1)));
  }
  const eye = medianColour(eyeSamples) ?? [70, 50, 35];
  return { skin, hair, eye, aspect: width / Math.max(1, height) };
}

/** The two parents' traits combined: skin mixed, the darker eyes and hair (dominant), a mean shape. */
export function combine(a: Traits, b: Traits): Traits {
  const mix = (x: Rgb, y: Rgb): Rgb => [0, 1, 2].map((k) => Math.round((x[k]! + y[k]!) / 2)) as Rgb;
  const darker = (x: Rgb, y: Rgb) => (luma(x) <= luma(y) ? x : y);
  const hair = a.hair && b.hair ? darker(a.hair, b.hair) : (a.hair ?? b.hair);
  return { skin: mix(a.skin, b.skin), hair, eye: darker(a.eye, b.eye), aspect: (a.aspect + b.aspect) / 2 };
}
