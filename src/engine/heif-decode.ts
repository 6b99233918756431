import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { crc32, deflateSync } from "node:zlib";

/**
 * HEIC/HEIF decoding for uploads (iPhone photos). sharp's prebuilt libvips reads HEIF
 * containers but carries no HEVC decoder (patents), so the pixels come from libheif and
 * libde265 compiled to WebAssembly (the `libheif-js` package, LGPL-3.0, loaded unmodified;
 * ADR 017). Each decode runs in a short-lived worker thread: a WebAssembly heap never shrinks,
 * and a 12-megapixel photo grows it by about 150 MB, which the web process must not keep.
 *
 * What libheif does for us: the primary item only (not thumbnails or depth maps), grids
 * (iPhones store 512x512 tiles) assembled and cropped, and the container's `irot`/`imir`/`clap`
 * transforms applied, so the picture comes out upright. (The EXIF orientation inside a HEIF is
 * informative only; libheif, like iOS, ignores it, and so do we.)
 */

export interface DecodedHeif {
  width: number;
  height: number;
  /** Interleaved RGBA, 8 bits per channel. */
  rgba: Buffer;
  hasAlpha: boolean;
  /** The embedded ICC profile (iPhones: Display P3), if any. */
  icc?: Buffer;
}

/** Why a HEIF was not decoded. `tooLarge` is decided from the container, before any decoding. */
export class HeifDecodeError extends Error {
  constructor(
    readonly kind: "tooLarge" | "damaged",
    readonly pixels = 0,
  ) {
    super(kind === "tooLarge" ? `HEIF declares ${pixels} pixels` : "HEIF could not be decoded");
    this.name = "HeifDecodeError";
  }
}

/** At most this many decodes at once: each may hold a photo's pixels a few times over. */
const MAX_CONCURRENT = 2;
/** A decode still running after this is stopped (a 12 MP photo takes about a second). */
const TIMEOUT_MS = 30_000;

// The worker is plain CommonJS given as source: it needs no TypeScript loader and no bundler.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const L = require(workerData.libheif);
const fail = (kind, pixels) => parentPort.postMessage({ error: kind, pixels: pixels || 0 });
(async () => {
  if (L.ready) await L.ready;
  const ctx = L.heif_context_alloc();
  let image = null;
  try {
    // libheif's own ceiling (width x height of any image it assembles, grids included), so a
    // grid whose descriptor claims more than its ispe still cannot allocate past the limit.
    try {
      L.heif_context_set_maximum_image_size_limit(ctx.$$.ptr, Math.floor(Math.sqrt(workerData.maxPixels)));
    } catch {}
    const read = L.heif_context_read_from_memory(ctx, workerData.bytes);
    if (!read || read.code !== L.heif_error_code.heif_error_Ok) return fail("damaged");
    const handle = L.heif_js_context_get_primary_image_handle(ctx);
    if (!handle || handle.code) return fail("damaged");
    image = new L.HeifImage(handle);
    // The declared size (ispe, after the transforms), read before anything is decoded.
    const width = image.get_width();
    const height = image.get_height();
    if (!(width > 0 && height > 0)) return fail("damaged");
    if (width * height > workerData.maxPixels) return fail("tooLarge", width * height);
    const hasAlpha = image.has_alpha_channel();
    let icc;
    try {
      const ptr = handle.$$.ptr;
      const size = L.heif_image_handle_get_raw_color_profile_size(ptr);
      if (size > 128 && size < 1 << 20) {
        const out = L._malloc(size);
        const err = L._malloc(16);
        // heif_error is returned by value: WebAssembly passes it through a pointer first.
        L.heif_image_handle_get_raw_color_profile(err, ptr, out);
        const bytes = Buffer.from(L.HEAPU8.subarray(out, out + size));
        if (L.HEAP32[err >> 2] === 0 && bytes.toString("latin1", 36, 40) === "acsp") icc = bytes;
        L._free(out);
        L._free(err);
      }
    } catch {}
    const shown = await new Promise((resolve) =>
      image.display({ data: new Uint8ClampedArray(width * height * 4), width, height }, resolve),
    );
    if (!shown) return fail("damaged");
    const rgba = shown.data.buffer;
    parentPort.postMessage({ width, height, hasAlpha, icc, rgba }, [rgba]);
  } catch {
    fail("damaged");
  } finally {
    if (image) image.free();
    L.heif_context_free(ctx);
  }
})();
`;

let libheifPath: string | undefined;
let running = 0;
const waiting: Array<() => void> = [];

async function slot(): Promise<() => void> {
  if (running >= MAX_CONCURRENT) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

/**
 * Decodes the primary image of a HEIF file to RGBA, refusing (before decoding) one whose
 * container declares more than `maxPixels`. Throws {@link HeifDecodeError}.
 */
export async function decodeHeif(bytes: Uint8Array, maxPixels: number): Promise<DecodedHeif> {
  libheifPath ??= createRequire(import.meta.url).resolve("libheif-js/wasm-bundle");
  const release = await slot();
  try {
    return await new Promise<DecodedHeif>((resolve, reject) => {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { libheif: libheifPath, bytes, maxPixels },
        // libheif prints its errors with console.log: keep them out of the server's log.
        stdout: true,
        stderr: true,
      });
      worker.stdout.resume();
      worker.stderr.resume();
      let settled = false;
      const done = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        void worker.terminate();
        fn();
      };
      const timer = setTimeout(() => done(() => reject(new HeifDecodeError("damaged"))), TIMEOUT_MS);
      worker.once("message", (m: WorkerAnswer) =>
        done(() =>
          "error" in m
            ? reject(new HeifDecodeError(m.error, m.pixels))
            : resolve({
                width: m.width,
                height: m.height,
                rgba: Buffer.from(m.rgba),
                hasAlpha: m.hasAlpha,
                icc: m.icc ? Buffer.from(m.icc) : undefined,
              }),
        ),
      );
      // A crash inside the decoder (a malformed stream) ends the worker, not the server.
      worker.once("error", () => done(() => reject(new HeifDecodeError("damaged"))));
      worker.once("exit", () => done(() => reject(new HeifDecodeError("damaged"))));
    });
  } finally {
    release();
  }
}

type WorkerAnswer =
  | { error: "tooLarge" | "damaged"; pixels: number }
  | { width: number; height: number; hasAlpha: boolean; icc?: Uint8Array; rgba: ArrayBuffer };

/**
 * An 8-bit RGBA PNG of the decoded pixels with the ICC profile in an iCCP chunk, so that sharp
 * converts the colours to sRGB like any tagged upload (sharp cannot tag raw input). Stored
 * uncompressed: it only lives for the next step.
 */
export function pngWithProfile(width: number, height: number, rgba: Buffer, icc: Buffer): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([head, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const stride = width * 4;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) rgba.copy(raw, y * (stride + 1) + 1, y * stride, (y + 1) * stride);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("iCCP", Buffer.concat([Buffer.from("icc\0\0", "latin1"), deflateSync(icc)])),
    chunk("IDAT", deflateSync(raw, { level: 1 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
