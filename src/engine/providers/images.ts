import sharp, { type Metadata } from "sharp";
import { EngineError, type RenderResult } from "@/core/ports/renderer";
import { ProviderCodes } from "./codes";

/**
 * Checks what a hosted provider sent back before we store it: it must decode as an image
 * of a sane size, and it leaves as PNG, JPEG or WebP (the formats we serve), with its
 * real dimensions read from the pixels rather than trusted from the provider's JSON.
 */

/** Largest provider answer we accept (a 4K PNG is well under this). */
export const MAX_OUTPUT_BYTES = 40 * 1024 * 1024;
/** Largest decoded output, in pixels (decompression-bomb guard). */
const MAX_OUTPUT_PIXELS = 50_000_000;

const BAD_OUTPUT = "The image service returned an unreadable image.";
const badOutput = (): EngineError => new EngineError(BAD_OUTPUT, true, ProviderCodes.badOutput);

export type OutputImage = Pick<RenderResult, "bytes" | "mime" | "width" | "height">;

/** Decodes the provider's bytes and returns them with their MIME type and size. */
export async function readOutputImage(bytes: Uint8Array): Promise<OutputImage> {
  if (bytes.byteLength === 0 || bytes.byteLength > MAX_OUTPUT_BYTES) throw badOutput();
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: MAX_OUTPUT_PIXELS }).metadata();
  } catch {
    throw badOutput();
  }
  const { width, height, format } = meta;
  if (!width || !height) throw badOutput();
  if (format === "png") return { bytes, mime: "image/png", width, height };
  if (format === "jpeg") return { bytes, mime: "image/jpeg", width, height };
  if (format === "webp") return { bytes, mime: "image/webp", width, height };
  // Anything else (AVIF, GIF, …) is converted, so what we store is always servable; the
  // provider's metadata is kept (provenance, C2PA, EXIF).
  try {
    const png = await sharp(bytes, { limitInputPixels: MAX_OUTPUT_PIXELS }).keepMetadata().png().toBuffer();
    return { bytes: new Uint8Array(png), mime: "image/png", width, height };
  } catch {
    throw badOutput();
  }
}

/** Width and height of an input image, or undefined if it cannot be read. */
export async function inputSize(bytes: Uint8Array): Promise<{ width: number; height: number } | undefined> {
  try {
    const { width, height } = await sharp(bytes).metadata();
    return width && height ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}

/** Decodes a `data:<mime>;base64,<data>` URI (fal's sync mode); undefined if it is not one. */
export function decodeDataUri(uri: string): Uint8Array | undefined {
  const m = /^data:[^;,]*(;base64)?,(.*)$/s.exec(uri);
  if (!m) return undefined;
  const data = m[2] ?? "";
  return m[1]
    ? new Uint8Array(Buffer.from(data, "base64"))
    : new TextEncoder().encode(decodeURIComponent(data));
}

const TOO_LARGE = "The image service returned an image that is too large.";

/**
 * Reads a provider's response body, refusing more than `max` bytes (by its declared length
 * and while streaming), so a huge or endless answer never fills memory.
 */
export async function readCapped(res: Response, max: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > max) {
    await res.body?.cancel().catch(() => undefined);
    throw new EngineError(TOO_LARGE, true, ProviderCodes.badOutput);
  }
  const reader = res.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw new EngineError(TOO_LARGE, true, ProviderCodes.badOutput);
    }
    chunks.push(value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}
