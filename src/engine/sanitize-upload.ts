import sharp, { type Metadata } from "sharp";
import { decodeHeif, HeifDecodeError, pngWithProfile } from "./heif-decode";

/**
 * Upload sanitizing: the single gate every user-supplied image passes before it is stored
 * or handed to a provider. The type is decided by the bytes themselves (magic numbers, then
 * a full strict decode), never by the filename or the Content-Type header, because both are
 * chosen by the client. Re-encoding from decoded pixels is what strips metadata: nothing of
 * the original container (EXIF with GPS, XMP, comments, trailing data, polyglot payloads)
 * survives, only pixels.
 *
 * HEIC/HEIF (iPhone photos, tiled grids included) is accepted and converted: it is decoded
 * by libheif in a worker thread (./heif-decode.ts) and stored as JPEG, or PNG when it has
 * transparency, since browsers cannot show HEIC.
 */

export type SanitizedMime = "image/png" | "image/jpeg" | "image/webp";

/** A cleaned upload: freshly encoded bytes without metadata, upright, in sRGB. */
export interface SanitizedUpload {
  /** Re-encoded image bytes (same format as the input; HEIF becomes JPEG, or PNG with alpha). */
  bytes: Buffer;
  mime: SanitizedMime;
  /** Dimensions after EXIF orientation was applied. */
  width: number;
  height: number;
}

/** Limits for {@link sanitizeUpload}. The byte-size limit is the caller's job. */
export interface SanitizeOptions {
  /** Largest accepted width x height (after orientation; rotation keeps the product). */
  maxPixels: number;
}

/**
 * Thrown when an upload is refused. `reason` is a specific English sentence meant for the
 * user (and logs); it never contains file contents.
 */
export class UploadRejectedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "UploadRejectedError";
  }
}

const NOT_SUPPORTED = "The file is not a PNG, JPEG or WebP image, nor a HEIC photo";
const DAMAGED = "The image is damaged or incomplete";

type Kind = "png" | "jpeg" | "webp" | "heif";

const MIME: Record<Exclude<Kind, "heif">, SanitizedMime> = {
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
};

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * ISOBMFF brands of HEVC-coded HEIF: still images (heic, heix, mif1, mif2, heim, heis) and
 * sequences, whose primary still image is what we take (msf1, hevc, hevx). An AVIF also
 * says mif1 but is AV1-coded: its own brands (avif, avis) mark it and it is refused.
 */
const HEIF_BRANDS = new Set(["heic", "heix", "heim", "heis", "mif1", "mif2", "msf1", "hevc", "hevx"]);
const AV1_BRANDS = new Set(["avif", "avis"]);

/** The major and compatible brands of an ISOBMFF `ftyp` box at the start, or null. */
function ftypBrands(b: Uint8Array): string[] | null {
  if (b.length < 16) return null;
  const ascii = (o: number) => String.fromCharCode(b[o]!, b[o + 1]!, b[o + 2]!, b[o + 3]!);
  if (ascii(4) !== "ftyp") return null;
  const size = ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
  if (size < 16 || size > 4096 || size > b.length || size % 4 !== 0) return null;
  const brands = [ascii(8)];
  for (let o = 16; o + 4 <= size; o += 4) brands.push(ascii(o));
  return brands;
}

/** Identifies the container from its leading bytes only. */
function sniff(b: Uint8Array): Kind | null {
  if (b.length >= 8 && PNG_SIGNATURE.every((v, i) => b[i] === v)) return "png";
  // SOI marker followed by the first marker's 0xFF.
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "jpeg";
  // "RIFF" <size> "WEBP": other RIFF payloads (WAV, AVI) must not pass.
  if (
    b.length >= 12 &&
    b[0] === 0x52 &&
    b[1] === 0x49 &&
    b[2] === 0x46 &&
    b[3] === 0x46 &&
    b[8] === 0x57 &&
    b[9] === 0x45 &&
    b[10] === 0x42 &&
    b[11] === 0x50
  ) {
    return "webp";
  }
  const brands = ftypBrands(b);
  if (brands && HEIF_BRANDS.has(brands[0]!) && !brands.some((x) => AV1_BRANDS.has(x))) return "heif";
  return null;
}

/**
 * Validates an uploaded image by content and returns a clean re-encoding of it.
 * Throws {@link UploadRejectedError} for anything that is not a complete, decodable
 * PNG, JPEG or WebP within `maxPixels`.
 */
export async function sanitizeUpload(bytes: Uint8Array, opts: SanitizeOptions): Promise<SanitizedUpload> {
  const kind = sniff(bytes);
  if (!kind) throw new UploadRejectedError(NOT_SUPPORTED);

  // sharp reads Buffers without copying; a view over the caller's memory is enough.
  const input = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (kind === "heif") return sanitizeHeif(input, opts);

  // Header-only pass first: sharp/libvips only parses the headers here, so a file that
  // declares an absurd size is refused before any pixel memory is allocated.
  let meta: Metadata;
  try {
    meta = await sharp(input, { failOn: "error", limitInputPixels: false }).metadata();
  } catch {
    throw new UploadRejectedError(DAMAGED);
  }
  // The decoder must agree with the magic bytes, otherwise the file is some hybrid.
  if (meta.format !== kind) throw new UploadRejectedError(NOT_SUPPORTED);
  const { width, height } = meta;
  if (!width || !height) throw new UploadRejectedError(DAMAGED);
  const pixels = width * height;
  if (pixels > opts.maxPixels) {
    throw new UploadRejectedError(`The image is too large: ${pixels} pixels (limit ${opts.maxPixels})`);
  }

  // Full decode and re-encode. failOn "error" makes a truncated or corrupt stream fail
  // instead of being padded with grey; limitInputPixels repeats the size check inside
  // libvips as a second line of defence. Only the first frame of an animated WebP is kept.
  const pipeline = sharp(input, {
    failOn: "error",
    limitInputPixels: opts.maxPixels,
    autoOrient: true,
  });
  // Without withMetadata()/keepExif() sharp writes no EXIF, XMP or ICC and converts the
  // pixels to sRGB, so the output carries nothing but the picture.
  const encoded =
    kind === "jpeg"
      ? pipeline.jpeg({ quality: 92, mozjpeg: false })
      : kind === "webp"
        ? pipeline.webp({ quality: 92 })
        : pipeline.png();
  try {
    const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
    return { bytes: data, mime: MIME[kind], width: info.width, height: info.height };
  } catch (err) {
    const message = err instanceof Error ? err.message : "";
    if (/pixel limit/i.test(message)) {
      throw new UploadRejectedError(`The image is too large: ${pixels} pixels (limit ${opts.maxPixels})`);
    }
    throw new UploadRejectedError(DAMAGED);
  }
}

const tooLarge = (pixels: number, limit: number) =>
  new UploadRejectedError(`The image is too large: ${pixels} pixels (limit ${limit})`);

/**
 * HEIF: the container's declared size is checked against the limit before anything is decoded
 * (in the decoder's worker), then the upright pixels are encoded as JPEG (PNG if the image has
 * an alpha channel), converted to sRGB from the embedded profile, with no metadata.
 */
async function sanitizeHeif(input: Buffer, opts: SanitizeOptions): Promise<SanitizedUpload> {
  let decoded;
  try {
    decoded = await decodeHeif(input, opts.maxPixels);
  } catch (err) {
    if (err instanceof HeifDecodeError && err.kind === "tooLarge") throw tooLarge(err.pixels, opts.maxPixels);
    throw new UploadRejectedError(DAMAGED);
  }
  const { width, height, rgba, hasAlpha, icc } = decoded;
  const source = icc
    ? sharp(pngWithProfile(width, height, rgba, icc), { limitInputPixels: opts.maxPixels })
    : sharp(rgba, { raw: { width, height, channels: 4 }, limitInputPixels: opts.maxPixels });
  try {
    const out = hasAlpha
      ? await source.png().toBuffer({ resolveWithObject: true })
      : await source
          .removeAlpha()
          .jpeg({ quality: 92, mozjpeg: false })
          .toBuffer({ resolveWithObject: true });
    return {
      bytes: out.data,
      mime: hasAlpha ? "image/png" : "image/jpeg",
      width: out.info.width,
      height: out.info.height,
    };
  } catch {
    throw new UploadRejectedError(DAMAGED);
  }
}
