import sharp from "sharp";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { facesOfFirstImage } from "./face-rules";
import type { RawImage } from "./image-io";
import { largestComponent } from "./components";
import { bounds, distanceOutside, fillHoles, keepComponents, smooth, threshold, type Mask } from "./mask";
import { opencv } from "./opencv";
import { detectObjects, personMatte, type DetectedObject, type Face } from "../vision/human";

/**
 * The main subject of a photo without a face (a pet, a toy, a cup): the most confident
 * object the detector finds, cut out with GrabCut inside its box. Shared by the effects
 * that promise pets and objects (stickers, the 3D figure).
 */

export function noSubjectError(): EngineError {
  return new EngineError(
    "No person, pet or object was found in this photo. Please upload a photo with one clear subject.",
    false,
    "noSubject",
  );
}

/**
 * The input rule of effects that take a person, a pet or an object: the faces of the first
 * photo (decoded at `maxSide`), or, with none, the subject the object detector names;
 * refused before charging when there is neither.
 */
export async function facesOrSubject(
  req: RenderRequest,
  maxSide: number,
): Promise<{ src: RawImage; faces: Face[]; subject: DetectedObject | null }> {
  const { src, faces } = await facesOfFirstImage(req, maxSide);
  if (faces.length) return { src, faces, subject: null };
  const subject = await findSubject(src);
  if (!subject) throw noSubjectError();
  return { src, faces, subject };
}

/** A subject must fill at least this share of the photo to be worth a sticker or a figure. */
const MIN_SHARE = 0.03;

/** The subject's detection: the most confident object that is not a person (people have faces). */
export async function findSubject(src: RawImage): Promise<DetectedObject | null> {
  const objects = await detectObjects({ data: src.data, width: src.width, height: src.height }, 0.3);
  const area = src.width * src.height;
  return objects.find((o) => o.label !== "person" && (o.box[2] * o.box[3]) / area >= MIN_SHARE) ?? null;
}

/**
 * The subject's mask at the image's size: GrabCut (OpenCV) at a working size of at most
 * 480 px, started from the detection box, then the largest piece, rounded and without
 * holes. Null if the cut leaves almost nothing.
 */
export async function cutOutSubject(
  src: RawImage,
  box: [number, number, number, number],
): Promise<Mask | null> {
  const { width, height } = src;
  const scale = Math.min(1, 320 / Math.max(width, height));
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  const small = await sharp(src.data, { raw: { width, height, channels: 3 } })
    .resize(w, h, { fit: "fill" })
    .raw()
    .toBuffer();
  // The box, kept a few pixels inside the frame so GrabCut has background to learn from.
  const inset = Math.max(2, Math.round(Math.min(w, h) * 0.02));
  const x0 = Math.max(inset, Math.round(box[0] * scale));
  const y0 = Math.max(inset, Math.round(box[1] * scale));
  const x1 = Math.min(w - inset, Math.round((box[0] + box[2]) * scale));
  const y1 = Math.min(h - inset, Math.round((box[1] + box[3]) * scale));
  if (x1 - x0 < 8 || y1 - y0 < 8) return null;

  const { cv } = await opencv();
  const img = cv.matFromArray(h, w, cv.CV_8UC3, small);
  const mask = new cv.Mat();
  const bgd = new cv.Mat();
  const fgd = new cv.Mat();
  const rect = new cv.Rect(x0, y0, x1 - x0, y1 - y0);
  let fg: Uint8Array;
  try {
    cv.grabCut(img, mask, rect, bgd, fgd, 3, cv.GC_INIT_WITH_RECT);
    const m = mask.data as Uint8Array;
    fg = new Uint8Array(w * h);
    // 1 = sure foreground, 3 = probable foreground.
    for (let i = 0; i < w * h; i++) fg[i] = m[i] === 1 || m[i] === 3 ? 255 : 0;
  } finally {
    img.delete();
    mask.delete();
    bgd.delete();
    fgd.delete();
  }
  const full = await sharp(Buffer.from(fg), { raw: { width: w, height: h, channels: 1 } })
    .resize(width, height, { fit: "fill" })
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
  const binary: Mask = { data: new Uint8Array(width * height), width, height };
  for (let i = 0; i < width * height; i++) binary.data[i] = full[i]! > 127 ? 1 : 0;
  // The piece under the box's centre (or the largest), rounded and without holes.
  const centre: [number, number] = [box[0] + box[2] / 2, box[1] + box[3] / 2];
  const kept = largestOr(binary, centre);
  const subject = fillHoles(await smooth(kept, Math.max(width, height) * 0.004));
  let area = 0;
  for (const v of subject.data) area += v;
  return area / (width * height) >= MIN_SHARE / 2 ? subject : null;
}

/** The component under `seed` if it is foreground, else the largest component. */
function largestOr(mask: Mask, seed: [number, number]): Mask {
  const [sx, sy] = [Math.round(seed[0]), Math.round(seed[1])];
  if (mask.data[sy * mask.width + sx]) return keepComponents(mask, [seed]);
  return {
    data: largestComponent(mask.data, mask.width, mask.height),
    width: mask.width,
    height: mask.height,
  };
}

/**
 * The people of a photo as one mask at the image's size, every found face included: the
 * person matte (selfie model) joined with each face's head and a body below it (the
 * selfie model, trained on one close person, misses people in a group and spills onto a
 * plain or damaged background), then refined by GrabCut at a working size of at most 256 px,
 * started from that guess: the face centres and a strip under each chin are sure person,
 * whatever lies far from every person is sure background. The heads are added back after the
 * cut, so a face GrabCut confuses with the backdrop is never dropped. Only the pieces that
 * hold a face are kept, rounded and without holes. Null if nothing is left.
 */
/** Working size of {@link cutOutPeople}'s GrabCut (its time grows with the pixels: about 0.1 s here). */
const PEOPLE_SIDE = 256;

export async function cutOutPeople(
  src: RawImage,
  faces: Face[],
  /**
   * Optional: receives the person model's matte (0..255, at the cut's working size) and
   * (session 11) `rejected`, 1 where the first guess said person and GrabCut took it away (the
   * matte's spill onto a plain wall between heads), at the same size.
   */
  out?: { matte?: Mask; rejected?: Mask },
): Promise<Mask | null> {
  if (!faces.length) return null;
  const { width, height } = src;
  const scale = Math.min(1, PEOPLE_SIDE / Math.max(width, height));
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  const small = await sharp(src.data, { raw: { width, height, channels: 3 } })
    .resize(w, h, { fit: "fill" })
    .raw()
    .toBuffer();
  const matte = await personMatte({ data: small, width: w, height: h });
  if (out) out.matte = { data: matte.alpha, width: w, height: h };
  const boxes = faces.map((f) => f.box.map((v) => v * scale) as [number, number, number, number]);

  // The first guess: the matte, each head (an ellipse a little larger than the face box) and
  // a body widening below it to about 2.2 face boxes; sure person: the face's centre and a
  // strip under the chin.
  const guess = new Uint8Array(w * h);
  const sure = new Uint8Array(w * h);
  const heads = new Uint8Array(w * h);
  for (const [fx, fy, fw, fh] of boxes) {
    const cx = fx + fw / 2;
    for (let y = Math.max(0, Math.floor(fy - fh * 0.3)); y < h; y++)
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        const head = ((x - cx) / (fw * 0.62)) ** 2 + ((y - (fy + fh * 0.45)) / (fh * 0.78)) ** 2 <= 1;
        const spread = Math.min(1, (y - fy - fh) / fh);
        const body = y > fy + fh && Math.abs(x - cx) < fw * (0.7 + spread * 0.4);
        // What is added back after the cut: the face and hair close round it.
        if (((x - cx) / (fw * 0.45)) ** 2 + ((y - (fy + fh * 0.5)) / (fh * 0.62)) ** 2 <= 1) heads[i] = 1;
        if (head || body) guess[i] = 1;
        const core = ((x - cx) / (fw * 0.3)) ** 2 + ((y - (fy + fh * 0.5)) / (fh * 0.35)) ** 2 <= 1;
        const chest = y > fy + fh && y < fy + fh * 1.6 && Math.abs(x - cx) < fw * 0.3;
        if (core || chest) sure[i] = 1;
      }
  }
  // The matte counts within half a (median) face box of a head or body: beyond, it has
  // spilled onto the backdrop (a tear, a stain, a plain wall).
  const faceSide = [...boxes.map((b) => b[2])].sort((a, b) => a - b)[boxes.length >> 1]!;
  const near = distanceOutside({ data: guess, width: w, height: h });
  for (let i = 0; i < w * h; i++) if (matte.alpha[i]! >= 128 && near[i]! < faceSide * 0.5) guess[i] = 1;
  const seeds = boxes.map(([fx, fy, fw, fh]): [number, number] => [fx + fw / 2, fy + fh / 2]);
  const start = keepComponents({ data: guess, width: w, height: h }, seeds);
  // Far from every person (more than half a face box outside the guess): background.
  const outside = distanceOutside(start);

  const init = new Uint8Array(w * h);
  let backdrop = 0;
  for (let i = 0; i < w * h; i++) {
    init[i] = sure[i] ? 1 : start.data[i] ? 3 : outside[i]! > faceSide * 0.5 ? 0 : 2;
    if (init[i] === 0 || init[i] === 2) backdrop++;
  }
  const cut = new Uint8Array(w * h);
  if (backdrop < w * h * 0.02) {
    // People fill the frame: no backdrop for GrabCut to learn from, the guess stands.
    for (let i = 0; i < w * h; i++) cut[i] = start.data[i] || heads[i] ? 255 : 0;
  } else await grabCutPeople(small, w, h, init, heads, cut);
  if (out)
    out.rejected = {
      data: Uint8Array.from(cut, (v, i) => (init[i] === 3 && !v ? 1 : 0)),
      width: w,
      height: h,
    };
  const full = await sharp(Buffer.from(cut), { raw: { width: w, height: h, channels: 1 } })
    .resize(width, height, { fit: "fill" })
    .toColourspace("b-w")
    .extractChannel(0)
    .raw()
    .toBuffer();
  const binary = threshold(full, width, height);
  const kept = keepComponents(
    binary,
    faces.map((f): [number, number] => [f.box[0] + f.box[2] / 2, f.box[1] + f.box[3] / 2]),
  );
  const people = fillHoles(await smooth(kept, Math.max(width, height) * 0.004));
  return bounds(people) ? people : null;
}

/**
 * GrabCut from a mask of GrabCut labels (0 bg, 1 fg, 2 probable bg, 3 probable fg); `out` gets
 * 255 where the guess (1 or 3) stays person, and on the heads.
 */
async function grabCutPeople(
  rgb: Buffer,
  w: number,
  h: number,
  init: Uint8Array,
  heads: Uint8Array,
  out: Uint8Array,
): Promise<void> {
  const { cv } = await opencv();
  const img = cv.matFromArray(h, w, cv.CV_8UC3, rgb);
  const mask = cv.matFromArray(h, w, cv.CV_8UC1, init);
  const bgd = new cv.Mat();
  const fgd = new cv.Mat();
  try {
    // GrabCut seeds its colour models from OpenCV's shared random generator: a fixed seed makes
    // the cut (and the render) the same for the same photo, whatever ran before.
    cv.setRNGSeed(0x5eed);
    cv.grabCut(img, mask, new cv.Rect(0, 0, w, h), bgd, fgd, 2, cv.GC_INIT_WITH_MASK);
    const m = mask.data as Uint8Array;
    // GrabCut only takes away from the guess (what it adds is backdrop of a person's colours).
    for (let i = 0; i < w * h; i++)
      out[i] = ((init[i] === 1 || init[i] === 3) && (m[i] === 1 || m[i] === 3)) || heads[i] ? 255 : 0;
  } finally {
    img.delete();
    mask.delete();
    bgd.delete();
    fgd.delete();
  }
}
