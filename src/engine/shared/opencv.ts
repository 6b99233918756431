/**
 * OpenCV (the WebAssembly build in @techstark/opencv-js), loaded once per thread on first
 * use (about 0.3 s). The engine uses it for what it does well and we should not hand-write:
 * inpainting.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- opencv.js ships loose types */
type OpenCv = any;

/**
 * The module is wrapped: Emscripten modules are thenables whose `then` yields the module
 * itself, so resolving a promise with one never settles (and spins the microtask queue).
 */
let loading: Promise<{ cv: OpenCv }> | null = null;

export async function opencv(): Promise<{ cv: OpenCv }> {
  loading ??= (async () => {
    const cv = require("@techstark/opencv-js");
    if (!cv.Mat) await new Promise<void>((resolve) => (cv.onRuntimeInitialized = resolve));
    return { cv };
  })();
  return loading;
}

/** Bytes of this thread's OpenCV WebAssembly heap (0 until first use); it only grows. */
export function opencvHeapBytes(): number {
  if (!loading) return 0;
  const cv = require("@techstark/opencv-js");
  return (cv.HEAPU8 as Uint8Array | undefined)?.length ?? 0;
}

/**
 * Fills the masked pixels of an RGB image from their surroundings (Telea's fast marching
 * method), `radius` pixels around each. Unmasked pixels are returned unchanged. Only the
 * mask's bounding box plus a margin wider than the radius is handed to OpenCV: Telea reads
 * nothing farther than that, and OpenCV's heap (WebAssembly: it never shrinks) then grows with
 * the damage, not with the photo.
 */
export async function inpaintRgb(
  rgb: Buffer,
  width: number,
  height: number,
  mask: Uint8Array,
  radius: number,
): Promise<Buffer> {
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      if (!mask[row + x]) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  if (x1 < 0) return Buffer.from(rgb);
  const margin = Math.ceil(radius) + 4;
  const left = Math.max(0, x0 - margin);
  const top = Math.max(0, y0 - margin);
  const w = Math.min(width, x1 + margin + 1) - left;
  const h = Math.min(height, y1 + margin + 1) - top;
  const part = Buffer.alloc(w * h * 3);
  const partMask = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    rgb.copy(part, y * w * 3, ((top + y) * width + left) * 3, ((top + y) * width + left + w) * 3);
    for (let x = 0; x < w; x++) partMask[y * w + x] = mask[(top + y) * width + left + x] ? 255 : 0;
  }
  const filled = await inpaintWhole(part, w, h, partMask, radius);
  const out = Buffer.from(rgb);
  for (let y = 0; y < h; y++) filled.copy(out, ((top + y) * width + left) * 3, y * w * 3, (y + 1) * w * 3);
  return out;
}

/** OpenCV's Telea inpainting over a whole image; `mask` is 0 (keep) or 255 (fill) per pixel. */
export async function inpaintWhole(
  rgb: Buffer,
  width: number,
  height: number,
  mask: Uint8Array,
  radius: number,
): Promise<Buffer> {
  const { cv } = await opencv();
  const src = cv.matFromArray(height, width, cv.CV_8UC3, rgb);
  const m = cv.matFromArray(height, width, cv.CV_8UC1, mask);
  const dst = new cv.Mat();
  try {
    cv.inpaint(src, m, dst, radius, cv.INPAINT_TELEA);
    return Buffer.from(dst.data as Uint8Array);
  } finally {
    src.delete();
    m.delete();
    dst.delete();
  }
}
