import sharp from "sharp";
import { decodeRaw, encodePng, firstImage, MAX_SIDE, type EffectOutput } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";

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

  // 1. Dust and scratches.
  const med = await sharp(src.data, raw).median(5).raw().toBuffer();
  const cleaned = Buffer.from(src.data);
  for (let i = 0; i < n; i++) {
    const o = i * 3;
    const l = src.data[o]! + src.data[o + 1]! + src.data[o + 2]!;
    const m = med[o]! + med[o + 1]! + med[o + 2]!;
    if (Math.abs(l - m) > 3 * 30) med.copy(cleaned, o, o, o + 3);
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

  // 5. Colour for grayscale input, at working size (before the upscale: 4x fewer pixels).
  if (meanChroma(src.data) < GRAY_CHROMA) colourise(contrasted, width, height);

  // 4. The 2x upscale with detail.
  const upscaled = await sharp(contrasted, raw)
    .resize(width * 2, height * 2, { kernel: "lanczos3" })
    // Detail on edges only (m1 0): flat areas keep their calm.
    .sharpen({ sigma: 1, m1: 0, m2: 2 })
    .raw()
    .toBuffer();
  return encodePng({ data: upscaled, width: width * 2, height: height * 2, channels: 3 });
}

/**
 * Colours a grayscale image in place. The chroma depends only on the luminance and on how
 * "sky-like" a pixel is (bright, near the top), so two lookup tables over the 256 grey
 * levels (no sky, full sky) and a blend between them replace per-pixel Lab maths.
 */
function colourise(data: Buffer, width: number, height: number): void {
  const ground = new Uint8Array(256 * 3);
  const sky = new Uint8Array(256 * 3);
  for (let v = 0; v < 256; v++) {
    const [L] = rgbToLab(v, v, v);
    const t = L / 100;
    // Warm, skin-like mid-tones; slightly cool shadows; faint warm highlights.
    const mid = Math.max(0, 1 - Math.abs(t - 0.62) / 0.3);
    ground.set(labToRgb(L, 2 + 11 * mid, -5 + 22 * mid + 6 * Math.max(0, t - 0.8)), v * 3);
    sky.set(labToRgb(L, -4, -18), v * 3);
  }
  for (let y = 0; y < height; y++) {
    const top = Math.max(0, 1 - y / (height * 0.35)); // near the top: sky, if bright
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      const v = Math.round((data[o]! + data[o + 1]! + data[o + 2]!) / 3);
      const w = top * Math.max(0, (v / 255 - 0.6) / 0.4);
      for (let c = 0; c < 3; c++)
        data[o + c] = Math.round(ground[v * 3 + c]! * (1 - w) + sky[v * 3 + c]! * w);
    }
  }
}
