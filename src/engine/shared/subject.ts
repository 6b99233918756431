import sharp from "sharp";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { facesOfFirstImage } from "./face-rules";
import type { RawImage } from "./image-io";
import { largestComponent } from "./components";
import { fillHoles, keepComponents, smooth, type Mask } from "./mask";
import { opencv } from "./opencv";
import { detectObjects, type DetectedObject, type Face } from "../vision/human";

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
