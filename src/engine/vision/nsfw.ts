import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";

/**
 * Nudity and sexual content in a photo: NSFWJS (MIT; its models ship in the npm package,
 * nothing is downloaded), on the same tfjs WebAssembly backend as the face models (Human
 * shares the tfjs-core instance). Loaded once per engine thread (about 0.3 s, 3.5 MB of
 * weights); one classification of a 224 px copy takes about 60 ms here.
 *
 * The model is MobileNetV2. Measured on the 26 fixture photos (explicit share, porn +
 * hentai, of the worst three): MobileNetV2 0.08 / 0.06 / 0.02; MobileNetV2Mid (the package's
 * default) 0.77 / 0.54 / 0.28, a child's 1860s portrait over the 0.7 threshold (old sepia
 * photos read as skin); InceptionV3 0.16 / 0.09 / 0.06 but 505 ms per image and 1.3 s to load.
 */

export interface NsfwScores {
  porn: number;
  hentai: number;
  sexy: number;
  neutral: number;
  drawing: number;
}

/** The share the refusal is judged on: explicit content, photographed or drawn. */
export const explicitShare = (s: NsfwScores): number => s.porn + s.hentai;

function pkgDir(name: string): string {
  for (const base of require.resolve.paths(name) ?? []) {
    const dir = path.join(base, name);
    if (fs.existsSync(path.join(dir, "package.json"))) return dir;
  }
  throw new Error(`${name} is not installed`);
}

type Classifier = { classify(img: unknown): Promise<Array<{ className: string; probability: number }>> };
let model: Promise<{ tf: typeof import("@tensorflow/tfjs"); classifier: Classifier }> | null = null;

function load() {
  model ??= (async () => {
    const tf = await import("@tensorflow/tfjs");
    if (tf.getBackend() !== "wasm") {
      const { setWasmPaths } = await import("@tensorflow/tfjs-backend-wasm");
      setWasmPaths(path.join(pkgDir("@tensorflow/tfjs-backend-wasm"), "dist") + path.sep);
      await tf.setBackend("wasm");
    }
    await tf.ready();
    const nsfwjs = await import("nsfwjs");
    // The package announces its bundled model on console.info at every load; our logs are
    // structured (pino), so that line is kept out of them.
    const info = console.info;
    console.info = () => undefined;
    let classifier: Classifier;
    try {
      classifier = (await nsfwjs.load("MobileNetV2")) as unknown as Classifier;
    } finally {
      console.info = info;
    }
    return { tf, classifier };
  })();
  return model;
}

/** The classifier's scores for an encoded image (EXIF orientation applied). */
export async function nsfwScores(bytes: Uint8Array): Promise<NsfwScores> {
  const { tf, classifier } = await load();
  const { data, info } = await sharp(Buffer.from(bytes), { limitInputPixels: 100_000_000 })
    .rotate()
    .resize(224, 224, { fit: "fill" })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const img = tf.tensor3d(new Int32Array(data), [info.height, info.width, 3], "int32");
  try {
    const out = await classifier.classify(img);
    const scores: NsfwScores = { porn: 0, hentai: 0, sexy: 0, neutral: 0, drawing: 0 };
    for (const p of out) {
      const k = p.className.toLowerCase() as keyof NsfwScores;
      if (k in scores) scores[k] = p.probability;
    }
    return scores;
  } finally {
    img.dispose();
  }
}
