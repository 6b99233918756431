import sharp, { type Sharp } from "sharp";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";

/**
 * Decoding and encoding shared by the local effects. Every effect reads its input through
 * here so orientation, colour space, size caps and error wording are the same everywhere,
 * and writes through here so every output is a metadata-free PNG.
 */

/** Longest output/working side. Larger inputs are shrunk first: speed and memory stay bounded. */
export const MAX_SIDE = 2048;

/**
 * Pixel ceiling for inputs. Uploads are already capped by sanitizeUpload; this guards the
 * engine when it is fed bytes from somewhere else (tests, tools, future callers).
 */
const MAX_INPUT_PIXELS = 100_000_000;

/** What every effect's render function returns: an encoded PNG and its size. */
export interface EffectOutput {
  bytes: Uint8Array;
  width: number;
  height: number;
}

/** Raw interleaved 8-bit pixels. */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

export interface OpenOptions {
  /** Longest side of the working image; never enlarged. Defaults to {@link MAX_SIDE}. */
  maxSide?: number;
  /** Composite transparent pixels onto white (effects that reason about colour). */
  flatten?: boolean;
}

/** The request's first image, or an EngineError if the runner sent none. */
export function firstImage(req: RenderRequest): Uint8Array {
  const image = req.images[0];
  if (!image || image.bytes.byteLength === 0) {
    throw new EngineError("No input image was provided.");
  }
  return image.bytes;
}

function asBuffer(bytes: Uint8Array): Buffer {
  // A view, not a copy: sharp reads Buffers in place.
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * A sharp pipeline over the input: upright (EXIF orientation applied), sRGB, shrunk so the
 * long side is at most `maxSide`. Operations added by the caller run after these.
 */
export function openInput(bytes: Uint8Array, opts: OpenOptions = {}): Sharp {
  const maxSide = opts.maxSide ?? MAX_SIDE;
  let img = sharp(asBuffer(bytes), {
    failOn: "error",
    limitInputPixels: MAX_INPUT_PIXELS,
    autoOrient: true,
  })
    .resize({ width: maxSide, height: maxSide, fit: "inside", withoutEnlargement: true })
    // Embedded ICC profiles are applied on the way in; CMYK and greyscale become sRGB.
    .toColourspace("srgb");
  if (opts.flatten) img = img.flatten({ background: "#ffffff" });
  return img;
}

/** Runs a sharp pipeline, turning decoder failures into a user-readable EngineError. */
export async function readable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof EngineError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    if (/pixel limit/i.test(message)) {
      throw new EngineError("The input image is too large to process.");
    }
    if (/input|unsupported|corrupt|premature|decode|vips/i.test(message)) {
      throw new EngineError("The input image could not be read; it may be damaged.");
    }
    throw err;
  }
}

/** Decodes to raw pixels via {@link openInput}. */
export async function decodeRaw(
  bytes: Uint8Array,
  opts: OpenOptions & { channels: 1 | 3 | 4 },
  // Extra steps (resize to a grid, blur...) applied after the common ones.
  extra: (img: Sharp) => Sharp = (img) => img,
): Promise<RawImage> {
  return readable(async () => {
    let img = extra(openInput(bytes, opts));
    img =
      opts.channels === 1
        ? img.toColourspace("b-w").removeAlpha()
        : opts.channels === 3
          ? img.removeAlpha()
          : img.ensureAlpha();
    const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: opts.channels };
  });
}

/** A sharp pipeline over raw pixels, for effects that process in several passes. */
export function fromRaw(raw: RawImage): Sharp {
  return sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels } });
}

/** Runs a pipeline over raw pixels and returns raw pixels with the same channel count. */
export async function transformRaw(raw: RawImage, steps: (img: Sharp) => Sharp): Promise<RawImage> {
  let img = steps(fromRaw(raw));
  // libvips hands single-band raw input back as sRGB (3 bands) after most operations; keep
  // the caller's channel count, or every later index is off by a factor of three.
  if (raw.channels === 1) img = img.toColourspace("b-w").extractChannel(0);
  const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== raw.channels) {
    throw new Error(`transformRaw: expected ${raw.channels} channels, got ${info.channels}`);
  }
  return { data, width: info.width, height: info.height, channels: raw.channels };
}

/**
 * Encodes raw pixels as PNG. Fixed settings (no adaptive filtering choice left to chance,
 * no metadata) keep the bytes identical for identical pixels.
 */
export async function encodePng(raw: RawImage): Promise<EffectOutput> {
  const bytes = await fromRaw(raw).png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer();
  return { bytes, width: raw.width, height: raw.height };
}
