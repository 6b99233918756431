import sharp from "sharp";
import { decodeRaw, encodePng, firstImage, MAX_SIDE, type EffectOutput } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import { fillPolygon } from "../../shared/mask";
import { inpaintRgb } from "../../shared/opencv";
import { detectFaces, personMatte, type Face } from "../../vision/human";
import { findDefects } from "./defects";

/**
 * Image Restoration for old or damaged photos:
 * 1. dust and scratches: pixels far from their neighbourhood's median (specks, thin lines)
 *    are replaced by that median;
 * 2. noise: an edge-preserving smoothing (3x3 median and a light blur, three quarters);
 * 3. contrast: CLAHE (local histogram equalisation, slope-limited so noise is not amplified);
 * 4. 2x upscale: lanczos3 and an unsharp mask for detail;
 * 5. colour for black-and-white input: the luminance is kept and chroma added from a
 *    luminance- and position-based palette (warm skin-like mid-tones, cooler shadows, a sky
 *    tint near the top for bright areas), in Lab space.
 */
const WORK_SIDE = MAX_SIDE / 2;
/** A grayscale photo has almost no chroma (sepia counts too: its chroma is one hue). */
export const GRAY_CHROMA = 12;
/** A toned photo: 95 % of its pixels under this Lab chroma... */
const TONED_MAX_CHROMA = 32;
/** ...and their hues agreeing this much (mean resultant length; a sepia print measures 0.95+). */
const TONED_MIN_AGREEMENT = 0.85;

const clamp = (v: number, lo = 0, hi = 255) => (v < lo ? lo : v > hi ? hi : v);

// sRGB <-> Lab (D65), enough precision for colouring.
const toLinear = (c: number) => {
  const v = c / 255;
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
};
const fromLinear = (v: number) => 255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);
const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
const finv = (t: number) => (t ** 3 > 216 / 24389 ? t ** 3 : (116 * t - 16) / (24389 / 27));

function rgbToLab(r: number, g: number, b: number): [number, number, number] {
  const R = toLinear(r);
  const G = toLinear(g);
  const B = toLinear(b);
  const x = (0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047;
  const y = 0.2126 * R + 0.7152 * G + 0.0722 * B;
  const z = (0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883;
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

function labToRgb(L: number, a: number, bb: number): [number, number, number] {
  const fy = (L + 16) / 116;
  const x = finv(fy + a / 500) * 0.95047;
  const y = finv(fy);
  const z = finv(fy - bb / 200) * 1.08883;
  return [
    clamp(Math.round(fromLinear(3.2406 * x - 1.5372 * y - 0.4986 * z))),
    clamp(Math.round(fromLinear(-0.9689 * x + 1.8758 * y + 0.0415 * z))),
    clamp(Math.round(fromLinear(0.0557 * x - 0.204 * y + 1.057 * z))),
  ];
}

/**
 * Whether a photo has one colour only: black-and-white, or toned (sepia, cyanotype, a faded
 * print's cast). In Lab, a toned photo's pixels all lie along one hue with little chroma; a
 * colour photo, even a sunset that is mostly orange, has either several hues or strong ones.
 */
export function isMonochrome(data: Buffer): boolean {
  if (meanChroma(data) < GRAY_CHROMA) return true;
  let sx = 0;
  let sy = 0;
  let n = 0;
  const chromas: number[] = [];
  for (let i = 0; i < data.length; i += 3 * 7) {
    const [, a, b] = rgbToLab(data[i]!, data[i + 1]!, data[i + 2]!);
    const c = Math.hypot(a, b);
    chromas.push(c);
    if (c < 4) continue;
    sx += a / c;
    sy += b / c;
    n++;
  }
  chromas.sort((x, y) => x - y);
  const strong = chromas[Math.floor(chromas.length * 0.95)] ?? 0;
  // Mean resultant length of the hue angles: 1 = one hue, 0 = all around the circle.
  const oneHue = n === 0 ? 1 : Math.hypot(sx, sy) / n;
  return strong < TONED_MAX_CHROMA && oneHue > TONED_MIN_AGREEMENT;
}

/** Mean chroma (max - min channel) of an RGB buffer. */
export function meanChroma(data: Buffer): number {
  let t = 0;
  for (let i = 0; i < data.length; i += 3)
    t += Math.max(data[i]!, data[i + 1]!, data[i + 2]!) - Math.min(data[i]!, data[i + 1]!, data[i + 2]!);
  return t / (data.length / 3);
}

export async function render(req: RenderRequest): Promise<EffectOutput> {
  const src = await decodeRaw(firstImage(req), { channels: 3, flatten: true, maxSide: WORK_SIDE });
  const { width, height } = src;
  const n = width * height;
  const raw = { raw: { width, height, channels: 3 as const } };

  // Faces: where dark spots are features, not dust, and where skin is tinted.
  const { faces } = await detectFaces({ data: src.data, width, height });
  const faceBoxes = faces.map((f) => f.box);

  // 1. Dust and scratches.
  const med = await sharp(src.data, raw).median(5).raw().toBuffer();
  const cleaned = Buffer.from(src.data);
  for (let i = 0; i < n; i++) {
    const o = i * 3;
    const l = src.data[o]! + src.data[o + 1]! + src.data[o + 2]!;
    const m = med[o]! + med[o + 1]! + med[o + 2]!;
    if (Math.abs(l - m) > 3 * 30) med.copy(cleaned, o, o, o + 3);
  }
  // 1b. Scratches, creases and dust larger than a speck: thin bright or dark lines and spots
  // found by morphology, inpainted (defects.ts).
  const defects = await findDefects(cleaned, width, height, faceBoxes);
  if (defects) {
    const fixed = await inpaintRgb(cleaned, width, height, defects, 4);
    fixed.copy(cleaned);
  }
  // 2. Noise: half-way to a 3x3 median keeps edges while calming grain.
  const soft = await sharp(cleaned, raw).median(3).blur(0.7).raw().toBuffer();
  for (let i = 0; i < cleaned.length; i++) cleaned[i] = (cleaned[i]! + 3 * soft[i]!) >> 2;

  // 3. Contrast: CLAHE on a half-size luminance (libvips' local histograms are slow at full
  // size), applied to the colour image as a smooth per-pixel gain.
  const hw = Math.max(8, width >> 1);
  const hh = Math.max(8, height >> 1);
  const lumHalf = await sharp(cleaned, raw)
    .resize(hw, hh, { fit: "fill" })
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
  const claheHalf = await sharp(lumHalf, { raw: { width: hw, height: hh, channels: 1 } })
    .clahe({ width: 64, height: 64, maxSlope: 2 })
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
  // Gain in 1/64 steps (0..4x), smoothed and brought to working size.
  const gainHalf = Buffer.alloc(hw * hh);
  for (let i = 0; i < gainHalf.length; i++)
    gainHalf[i] = clamp(Math.round(((claheHalf[i]! + 4) / (lumHalf[i]! + 4)) * 64));
  const gain = await sharp(gainHalf, { raw: { width: hw, height: hh, channels: 1 } })
    .blur(1.5)
    .resize(width, height, { fit: "fill" })
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
  const contrasted = Buffer.alloc(cleaned.length);
  for (let i = 0; i < width * height; i++) {
    const k = gain[i]! / 64;
    for (let c = 0; c < 3; c++) contrasted[i * 3 + c] = clamp(Math.round(cleaned[i * 3 + c]! * k));
  }

  // 5. Colour for black-and-white and toned input, at working size (before the upscale: 4x
  // fewer pixels): the tone is taken out (the luminance kept), then people's skin, their
  // clothes and the background are tinted apart, like a hand-coloured print.
  if (isMonochrome(src.data)) {
    const zones = await colourZones(contrasted, width, height, faces);
    colourise(contrasted, width, height, zones);
  }

  // 4. The 2x upscale with detail.
  const upscaled = await sharp(contrasted, raw)
    .resize(width * 2, height * 2, { kernel: "lanczos3" })
    // Detail on edges only (m1 0): flat areas keep their calm.
    .sharpen({ sigma: 1, m1: 0, m2: 2 })
    .raw()
    .toBuffer();
  return encodePng({ data: upscaled, width: width * 2, height: height * 2, channels: 3 });
}

/** Where the colours go: 2 = skin (faces), 1 = the rest of a person (clothes, hair, hands), 0 = background. */
async function colourZones(
  data: Buffer,
  width: number,
  height: number,
  faces: Face[],
): Promise<Float32Array> {
  const pixels = { data, width, height };
  const zones = new Float32Array(width * height);
  if (faces.length) {
    const { alpha } = await personMatte(pixels);
    for (let i = 0; i < zones.length; i++) zones[i] = alpha[i]! / 255;
    // Skin: each face's oval from its mesh, a little shrunk so hair and collar stay out.
    const skin = new Uint8Array(width * height);
    for (const f of faces)
      fillPolygon(
        { data: skin, width, height },
        FACE_OVAL.map((k) => [f.mesh[k]![0], f.mesh[k]![1]]),
      );
    const soft = await sharp(Buffer.from(skin.map((v) => (v ? 255 : 0))), {
      raw: { width, height, channels: 1 },
    })
      .blur(Math.max(1, width / 250))
      .extractChannel(0)
      .raw()
      .toBuffer();
    // Inside a face the zone runs from 1 (its soft rim: person) to 2 (skin).
    for (let i = 0; i < zones.length; i++) if (soft[i]!) zones[i] = Math.max(zones[i]!, 1 + soft[i]! / 255);
  }
  return zones;
}

/** FaceMesh's face oval (468-point mesh). */
const FACE_OVAL = [
  10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377, 152, 148, 176, 149,
  150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109,
];

/**
 * Colours a one-colour image in place, keeping its luminance. Three lookup tables over the 256
 * grey levels (background, clothes, skin) and a sky tint for bright areas near the top; each
 * pixel blends them by its zone (colourZones).
 */
function colourise(data: Buffer, width: number, height: number, zones: Float32Array): void {
  const ground = new Uint8Array(256 * 3);
  const sky = new Uint8Array(256 * 3);
  const cloth = new Uint8Array(256 * 3);
  const skin = new Uint8Array(256 * 3);
  for (let v = 0; v < 256; v++) {
    const [L] = rgbToLab(v, v, v);
    const t = L / 100;
    const mid = Math.max(0, 1 - Math.abs(t - 0.55) / 0.4);
    // Background: a cool grey-blue studio backdrop or wall, neutral in the highlights.
    ground.set(labToRgb(L, -2 * mid, -9 * mid), v * 3);
    sky.set(labToRgb(L, -4, -16), v * 3);
    // The rest of a person (clothes, hair, hands and arms, which the face oval does not
    // cover): a soft warm neutral, so bare skin there never turns blue.
    cloth.set(labToRgb(L, 3 * mid + 1, 9 * mid + 2), v * 3);
    // Faces: warm, rosy skin.
    skin.set(labToRgb(L, 10 * mid + 2, 14 * mid + 4), v * 3);
  }
  for (let y = 0; y < height; y++) {
    const top = Math.max(0, 1 - y / (height * 0.35)); // near the top: sky, if bright
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const o = i * 3;
      // The luminance only: a toned photo's tint goes.
      const v = Math.round(0.299 * data[o]! + 0.587 * data[o + 1]! + 0.114 * data[o + 2]!);
      const z = zones[i]!;
      const person = Math.min(1, z);
      const face = Math.max(0, z - 1);
      const w = top * Math.max(0, (v / 255 - 0.6) / 0.4) * (1 - person);
      for (let c = 0; c < 3; c++) {
        const back = ground[v * 3 + c]! * (1 - w) + sky[v * 3 + c]! * w;
        const body = cloth[v * 3 + c]! * (1 - face) + skin[v * 3 + c]! * face;
        data[o + c] = Math.round(back * (1 - person) + body * person);
      }
    }
  }
}
