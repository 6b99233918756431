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

/**
 * Fills the masked pixels of an RGB image from their surroundings (Telea's fast marching
 * method), `radius` pixels around each. Unmasked pixels are returned unchanged.
 */
export async function inpaintRgb(
  rgb: Buffer,
  width: number,
  height: number,
  mask: Uint8Array,
  radius: number,
): Promise<Buffer> {
  const { cv } = await opencv();
  const src = cv.matFromArray(height, width, cv.CV_8UC3, rgb);
  const m = cv.matFromArray(
    height,
    width,
    cv.CV_8UC1,
    Uint8Array.from(mask, (v) => (v ? 255 : 0)),
  );
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
