import { decodeRaw, type RawImage } from "../../shared/image-io";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { detectFaces, personMatte, type Face } from "../../vision/human";

/** A face measured from its mesh (the detector's box is loose: it spans most of the head). */
export interface Head {
  /** Centre between the cheeks, halfway from the top of the forehead to the chin. */
  cx: number;
  cy: number;
  /** Forehead top to chin, and cheek to cheek, in photo pixels. */
  height: number;
  width: number;
  /** Chin's y. */
  chin: number;
  /** Slope of the eye line (radians, image axes: positive when the right-hand eye is lower). */
  roll: number;
  /** Where the nose points: negative towards the photo's left, positive towards its right. */
  turn: number;
}

export interface Person {
  image: RawImage;
  face: Face;
  head: Head;
  /** Person matte at the image's size, 0..255. */
  alpha: Buffer;
}

/**
 * How much of the person below the chin a photo must show: a row of the matte below the
 * chin at least this many face widths wide (the shoulders). A face-only crop would put a lone
 * head into the hug.
 */
export const MIN_SHOULDERS = 1.5;

const needTwoPhotos = () =>
  new EngineError("Please upload two photos: you today first, then you as a child.", false, "needTwoPhotos");

export function headOf(face: Face): Head {
  const m = face.mesh;
  const at = (i: number) => m[i] ?? ([0, 0, 0] as [number, number, number]);
  const [top, chin, left, right, eyeL, eyeR, nose] = [10, 152, 234, 454, 33, 263, 1].map(at) as Array<
    [number, number, number]
  >;
  if (m.length < 468) {
    // No mesh: the box, shrunk to the face proper.
    const [x, y, w, h] = face.box;
    return {
      cx: x + w / 2,
      cy: y + h * 0.55,
      height: h * 0.72,
      width: w * 0.6,
      chin: y + h * 0.9,
      roll: 0,
      turn: 0,
    };
  }
  const width = Math.max(1, Math.hypot(right![0] - left![0], right![1] - left![1]));
  return {
    cx: (left![0] + right![0]) / 2,
    cy: (top![1] + chin![1]) / 2,
    height: Math.max(1, Math.hypot(chin![0] - top![0], chin![1] - top![1])),
    width,
    chin: chin![1],
    roll: Math.atan2(eyeR![1] - eyeL![1], eyeR![0] - eyeL![0]),
    turn: (nose![0] - (left![0] + right![0]) / 2) / width,
  };
}

/** The widest row of the matte below the chin, in face widths (how much shoulder the photo shows). */
export function shoulderWidth({ image, alpha, head }: Pick<Person, "image" | "alpha" | "head">): number {
  const { width, height } = image;
  let widest = 0;
  for (let y = Math.max(0, Math.ceil(head.chin)); y < height; y++) {
    let run = 0;
    for (let x = 0; x < width; x++) if (alpha[y * width + x]! >= 128) run++;
    widest = Math.max(widest, run);
  }
  return widest / head.width;
}

const TODAY = "the first photo (you today)";
const THEN = "the second photo (you as a child)";
const capitalised = (which: string) => `${which[0]!.toUpperCase()}${which.slice(1)}`;

/** One photo's single face (the rules every engine obeys), with the pixels it was found on. */
async function oneFace(bytes: Uint8Array, which: string): Promise<{ image: RawImage; face: Face }> {
  if (bytes.byteLength === 0) throw needTwoPhotos();
  const image = await decodeRaw(bytes, { channels: 3, flatten: true, maxSide: 1024 });
  const { faces } = await detectFaces(image);
  if (!faces[0])
    throw new EngineError(`No face was found in ${which}. Please upload a clear portrait.`, false, "noFace");
  // A group photo would paste the whole group into the hug: each photo shows one person.
  if (faces.length > 1)
    throw new EngineError(
      `${capitalised(which)} shows several faces. Please upload a photo of just you.`,
      false,
      "severalFaces",
    );
  return { image, face: faces[0] };
}

async function person(bytes: Uint8Array, which: string): Promise<Person> {
  const { image, face } = await oneFace(bytes, which);
  const Which = capitalised(which);
  const head = headOf(face);
  const { alpha } = await personMatte(image);
  const found = { image, face, head, alpha };
  // The hug needs shoulders to lean together: a crop at the chin would leave a lone head.
  if (shoulderWidth(found) < MIN_SHOULDERS)
    throw new EngineError(
      `${Which} shows only the face. Please upload a photo showing your head and shoulders.`,
      false,
      "noShoulders",
    );
  return found;
}

/**
 * Hug input rules: exactly two photos, today's first, the childhood one second, each with
 * exactly one face (a group photo is refused: the hug would paste the whole group) and the
 * shoulders in the photo (a face-only crop would float as a lone head). Run before charging
 * and as the render's first step.
 */
export async function inspect(req: RenderRequest): Promise<{ adult: Person; child: Person }> {
  const [today, then] = req.images;
  if (req.images.length !== 2 || !today || !then) throw needTwoPhotos();
  const adult = await person(today.bytes, TODAY);
  const child = await person(then.bytes, THEN);
  return { adult, child };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));

/**
 * What any engine must be given (ADR 008): the two photos, each of one person. The shoulders
 * are the local engine's limit (it leans two cut-outs together); a hosted model draws the
 * upper bodies itself.
 */
export async function safety(req: RenderRequest): Promise<void> {
  const [today, then] = req.images;
  if (req.images.length !== 2 || !today || !then) throw needTwoPhotos();
  await oneFace(today.bytes, TODAY);
  await oneFace(then.bytes, THEN);
}
