import { firstImage, type RawImage } from "../../shared/image-io";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { detectBodies, detectFaces, personMatte, type Face } from "../../vision/human";
import { minorSignals, shoulders } from "../../vision/minor-signal";
import { decodePortrait, noFaceError, requireOneFace } from "../../shared/face-rules";

/** Where the bust sits, from the shoulder keypoints (image pixels). */
export interface BustRegion {
  /** The two centres of the warp. */
  centres: [[number, number], [number, number]];
  /** Radius of each warp disc. */
  radius: number;
  /** Unit vector down the torso (perpendicular to the shoulder line). */
  down: [number, number];
}

/**
 * Body proportions of an adult torso, in shoulder widths (acromion to acromion): the bust
 * points lie about 0.6 below the shoulder line and 0.22 either side of the midline.
 */
const BELOW_SHOULDERS = 0.6;
const OFF_MIDLINE = 0.22;
const RADIUS = 0.2;
/**
 * A chest-up photo cut near the bust line: the centres may rise towards the shoulders, to
 * no less than this (shoulder widths below the shoulder line, the upper end of the adult
 * range), to stay at least {@link EDGE_MARGIN} radii inside the bottom edge. Less room than
 * that: the chest is not in the picture.
 */
const MIN_BELOW_SHOULDERS = 0.4;
const EDGE_MARGIN = 0.3;
/** Share of each disc's in-frame pixels that must lie on the person (the torso, not the backdrop). */
const MIN_ON_PERSON = 0.9;

export function minorError(): EngineError {
  return new EngineError(
    "This photo may show someone under 18. This effect only edits photos of adults.",
    false,
    "mayBeMinor",
  );
}

function severalPeopleError(): EngineError {
  return new EngineError(
    "This photo seems to show more than one person. This effect only edits photos of one adult alone.",
    false,
    "severalPeople",
  );
}

/**
 * Half a face width below the eyes, one person's matte is about their head's width (0.9 to
 * 1.8 face widths on adult portraits, long hair included). Wider means someone else is
 * beside the head: a child on the shoulders, a partner, a hand. People whose faces the
 * detector cannot see (turned away) are caught this way.
 */
const MAX_MATTE_WIDTH_BELOW_EYES = 2.3;

type Matte = { alpha: Buffer; width: number; height: number };

function aloneInFrame(matte: Matte, src: RawImage, face: Face, faceWidth: number): boolean {
  const scale = matte.width / src.width;
  const eyes = (face.mesh[159]![1] + face.mesh[386]![1]) / 2;
  const y = Math.round((eyes + faceWidth * 0.5) * scale);
  if (y < 0 || y >= matte.height) return true;
  let covered = 0;
  for (let x = 0; x < matte.width; x++) if (matte.alpha[y * matte.width + x]! > 128) covered++;
  return covered / scale <= faceWidth * MAX_MATTE_WIDTH_BELOW_EYES;
}

/** Share of a disc's in-frame pixels that the person matte covers (sampled every few pixels). */
function onPerson(matte: Matte, src: RawImage, cx: number, cy: number, r: number): number {
  const scale = matte.width / src.width;
  const step = Math.max(1, r / 12);
  let inside = 0;
  let on = 0;
  for (let y = cy - r; y <= cy + r; y += step)
    for (let x = cx - r; x <= cx + r; x += step) {
      if (Math.hypot(x - cx, y - cy) > r || y < 0 || y >= src.height || x < 0 || x >= src.width) continue;
      inside++;
      const i = Math.floor(y * scale) * matte.width + Math.floor(x * scale);
      if (matte.alpha[i]! > 128) on++;
    }
  return inside ? on / inside : 0;
}

function noUpperBodyError(): EngineError {
  return new EngineError(
    "The upper body could not be located reliably. Please upload a photo of one adult facing the camera, showing the shoulders and chest.",
    false,
    "noUpperBody",
  );
}

/** Cheek to cheek on the mesh: the detector's box is a padded square whose size varies with scale. */
const faceWidthOf = (face: Face): number =>
  Math.hypot(face.mesh[454]![0] - face.mesh[234]![0], face.mesh[454]![1] - face.mesh[234]![1]);

/**
 * The first rules, in this order: the confirmation that the person is an adult who
 * consented; a face; no face that may be a minor's (any face in the photo); exactly one face.
 */
async function oneAdult(req: RenderRequest) {
  if (req.options.adultConsent !== true) {
    throw new EngineError("Please confirm that the person shown is an adult who consented to this edit.");
  }
  const src = await decodePortrait(firstImage(req));
  const { faces } = await detectFaces(src, { age: true });
  if (faces.length === 0) throw noFaceError();
  const { bodies } = await detectBodies(src);
  const body = faces.length === 1 ? bodies[0] : undefined;
  if (faces.some((f) => minorSignals(f, f === faces[0] ? body : undefined).mayBeMinor)) throw minorError();
  return { src, face: requireOneFace(faces), body };
}

/**
 * Bust enhancement input rules, in this order: the confirmation that the person is an
 * adult who consented; a face; no face that may be a minor's (any face in the photo);
 * exactly one face; shoulders found with confidence, a plausible width for the face,
 * nobody else beside the head (the person matte), and the chest in the frame: the bust
 * discs' sides and top inside it (a photo cut at the bust line moves them up, within the
 * adult range) and each disc on the person's matte. Run before charging and as the render's first step.
 */
export async function inspect(
  req: RenderRequest,
): Promise<{ src: RawImage; face: Face; region: BustRegion }> {
  const { src, face, body } = await oneAdult(req);

  const sh = shoulders(body);
  if (!sh) throw noUpperBodyError();
  const [sx, sy] = [sh.right[0] - sh.left[0], sh.right[1] - sh.left[1]];
  const width = Math.hypot(sx, sy);
  const faceWidth = faceWidthOf(face);
  const chin = Math.max(...face.mesh.map((p) => p[1]));
  // The shoulders must be below the chin and 1.6 to 4.5 face widths apart (adults measure
  // about 2.4), or the keypoints are not a torso we can trust.
  if (
    width < faceWidth * 1.6 ||
    width > faceWidth * 4.5 ||
    Math.min(sh.left[1], sh.right[1]) < chin - faceWidth * 0.3
  )
    throw noUpperBodyError();
  const matte = await personMatte(src);
  if (!aloneInFrame(matte, src, face, faceWidth)) throw severalPeopleError();
  const along: [number, number] = [sx / width, sy / width];
  // Perpendicular to the shoulder line, pointing down the image.
  let down: [number, number] = [-along[1], along[0]];
  if (down[1] < 0) down = [-down[0], -down[1]];
  const mid = [(sh.left[0] + sh.right[0]) / 2, (sh.left[1] + sh.right[1]) / 2];
  const radius = width * RADIUS;
  const centre = (side: number, below: number): [number, number] => [
    mid[0]! + down[0] * width * below + along[0] * width * OFF_MIDLINE * side,
    mid[1]! + down[1] * width * below + along[1] * width * OFF_MIDLINE * side,
  ];
  // How far down the torso the centres can sit and stay EDGE_MARGIN radii above the bottom edge.
  const room = Math.min(
    ...[-1, 1].map((side) => {
      const [, y] = centre(side, 0);
      return (src.height - radius * EDGE_MARGIN - y) / (down[1] * width);
    }),
  );
  const below = Math.min(BELOW_SHOULDERS, room);
  if (below < MIN_BELOW_SHOULDERS) throw noUpperBodyError();
  const region: BustRegion = { centres: [centre(-1, below), centre(1, below)], radius, down };
  // The sides and the top of each disc in the frame (its bottom may leave it), and the disc on the person.
  for (const [x, y] of region.centres) {
    if (x - radius < 0 || y - radius < 0 || x + radius > src.width || y > src.height)
      throw noUpperBodyError();
    if (onPerson(matte, src, x, y, radius) < MIN_ON_PERSON) throw noUpperBodyError();
  }
  return { src, face, region };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));

/**
 * The rules every engine obeys (ADR 008): the adult's confirmation, a face, no sign of a
 * minor, one face and nobody else beside the head. Locating the chest for the warp
 * (noUpperBody) is the local engine's limit.
 */
export async function safety(req: RenderRequest): Promise<void> {
  const { src, face } = await oneAdult(req);
  if (!aloneInFrame(await personMatte(src), src, face, faceWidthOf(face))) throw severalPeopleError();
}
