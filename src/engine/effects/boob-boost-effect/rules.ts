import { firstImage, type RawImage } from "../../shared/image-io";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { detectBodies, detectFaces, personMatte, type Body, type Face } from "../../vision/human";
import { minorSignals, shoulders } from "../../vision/minor-signal";
import { decodePortrait, noFaceError, requireOneFace } from "../../shared/face-rules";
import { visibleShift } from "./warp";

/**
 * Where the fuller form goes, from the shoulder keypoints (and the hips when MoveNet sees them),
 * in image pixels. Each side's volume is a smooth bump over an egg-shaped footprint: wider
 * towards the arm than towards the midline, a long gentle upper slope and a shorter lower curve
 * (see {@link footprint}).
 */
export interface BustRegion {
  /** The centres of the two volumes (the fullest point of each side). */
  centres: [[number, number], [number, number]];
  /** Midpoint of the two shoulder keypoints. */
  shoulderMid: [number, number];
  /** Shoulder width (keypoint to keypoint): every size below is a share of it. */
  width: number;
  /** Unit vector along the shoulder line (from the first centre's side to the second's). */
  along: [number, number];
  /** Unit vector down the torso (perpendicular to the shoulder line). */
  down: [number, number];
  /** Shoulder line to hip line along `down` (measured when both hips are seen, else estimated). */
  torso: number;
  hipsSeen: boolean;
}

/**
 * Adult proportions, in shoulder widths unless said otherwise. The fullest point of the bust
 * lies about a third of the way from the shoulder line to the hips ({@link BELOW_SHOULDERS}, of
 * the torso length; anatomical range 0.25-0.45), 0.2 either side of the midline. The torso is
 * {@link TORSO} shoulder widths long when the hips are out of the picture (measured from the
 * hips otherwise, within {@link TORSO_RANGE}).
 */
export const BELOW_SHOULDERS = 0.3;
const OFF_MIDLINE = 0.2;
const TORSO = 1.45;
const TORSO_RANGE: [number, number] = [1.1, 1.9];
/** Footprint half-axes: towards the midline, towards the arm, up the torso, down the torso. */
export const AXES = { inner: 0.24, outer: 0.27, up: 0.34, down: 0.2 } as const;
/** Hip keypoints below this confidence are not used (the torso length is estimated instead). */
const MIN_HIP_SCORE = 0.3;

/**
 * A point's place in one side's footprint: `q` (0 at the fullest point, 1 on the rim), and its
 * coordinates scaled by the half-axes (`qu` towards the arm, `qv` down the torso).
 */
export function footprint(
  region: BustRegion,
  side: 0 | 1,
  x: number,
  y: number,
): { q: number; qu: number; qv: number; a: number; b: number } {
  const [cx, cy] = region.centres[side];
  const out = side === 0 ? -1 : 1;
  const u = ((x - cx) * region.along[0] + (y - cy) * region.along[1]) * out;
  const v = (x - cx) * region.down[0] + (y - cy) * region.down[1];
  const a = region.width * (u >= 0 ? AXES.outer : AXES.inner);
  const b = region.width * (v >= 0 ? AXES.down : AXES.up);
  const qu = u / a;
  const qv = v / b;
  return { q: Math.hypot(qu, qv), qu, qv, a, b };
}

/** Bounding box of both footprints, clipped to the image: [x0, y0, x1, y1] inclusive. */
export function regionBox(region: BustRegion, w: number, h: number): [number, number, number, number] {
  const reach = region.width * Math.max(AXES.outer, AXES.up);
  const xs = region.centres.map((c) => c[0]);
  const ys = region.centres.map((c) => c[1]);
  return [
    Math.max(0, Math.floor(Math.min(...xs) - reach)),
    Math.max(0, Math.floor(Math.min(...ys) - reach)),
    Math.min(w - 1, Math.ceil(Math.max(...xs) + reach)),
    Math.min(h - 1, Math.ceil(Math.max(...ys) + reach)),
  ];
}

/**
 * How much of the form must be in the photo: the fullest point no further below the bottom edge
 * than {@link BELOW_EDGE} of the lower half-axis (a chest-up portrait cut across the bust keeps
 * the upper slope, where a fuller form shows), and the upper slope in the picture. A photo cut
 * at the neckline leaves nothing of the form: refused (`chestOutOfFrame`).
 */
const BELOW_EDGE = 0.35;
/** Share of each footprint's in-frame pixels that must lie on the person (the torso, not the backdrop). */
const MIN_ON_PERSON = 0.85;
/** Largest tilt of the shoulder line (radians, about 25 degrees) for a body facing the camera. */
const MAX_TILT = 0.44;

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

export type Matte = { alpha: Buffer; width: number; height: number };

function aloneInFrame(matte: Matte, src: RawImage, face: Face, faceWidth: number): boolean {
  const scale = matte.width / src.width;
  const eyes = (face.mesh[159]![1] + face.mesh[386]![1]) / 2;
  const y = Math.round((eyes + faceWidth * 0.5) * scale);
  if (y < 0 || y >= matte.height) return true;
  let covered = 0;
  for (let x = 0; x < matte.width; x++) if (matte.alpha[y * matte.width + x]! > 128) covered++;
  return covered / scale <= faceWidth * MAX_MATTE_WIDTH_BELOW_EYES;
}

/**
 * The garment over the chest, and what is not the garment: in each footprint, pixels whose
 * colour is off the garment's (chromaticity off the footprint's median by more than
 * {@link OFF_CHROMA}, or lightness outside {@link LIGHT_RANGE} of the median, both offset by
 * {@link DARK} levels: a shadow fold
 * keeps the cloth's hue and stays inside it), joined in 4-connected pieces. A print or pattern
 * is many small pieces and is warped with the cloth; a piece of at least {@link MIN_RIGID_PIECE}
 * of its footprint (a name tag, a ribbon bar, a badge) does not bend like cloth: the render
 * moves it whole (one displacement, no distortion). A piece larger than {@link MAX_RIGID} of a
 * footprint (an arm across the chest, straps and a hose, a bag) leaves too little cloth to
 * reshape: refused (`chestCovered`).
 */
const OFF_CHROMA = 0.07;
/** Levels added to every channel before chromaticity and lightness ratios (dark cloth is noisy). */
const DARK = 20;
const LIGHT_RANGE: [number, number] = [0.5, 1.9];
export const MAX_RIGID = 0.3;
export const MIN_RIGID_PIECE = 0.004;
/**
 * The core of a footprint, where the form moves most (q below this). A neckline, a shirt
 * between lapels or the skin at the midline lies outside it and is not counted as covering.
 */
const CORE = 0.7;

/** Radius of the closing that joins an object's parts into one piece, in shoulder widths. */
const CLOSE_RADIUS = 0.012;

/** Binary closing by a (2r+1)² square: running maxima, then minima, along rows and columns. */
function close(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const pass = (src: Uint8Array, grow: boolean): Uint8Array => {
    const tmp = new Uint8Array(w * h);
    const out = new Uint8Array(w * h);
    const pick = (a: number, b: number) => (grow ? Math.max(a, b) : Math.min(a, b));
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        let v = grow ? 0 : 1;
        for (let d = -r; d <= r; d++) {
          const xx = x + d;
          v = pick(v, xx < 0 || xx >= w ? (grow ? 0 : 1) : src[y * w + xx]!);
        }
        tmp[y * w + x] = v;
      }
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        let v = grow ? 0 : 1;
        for (let d = -r; d <= r; d++) {
          const yy = y + d;
          v = pick(v, yy < 0 || yy >= h ? (grow ? 0 : 1) : tmp[yy * w + x]!);
        }
        out[y * w + x] = v;
      }
    return out;
  };
  return pass(pass(mask, true), false);
}

export interface ChestPieces {
  /** The region's box (regionBox) and, per pixel of it, the rigid piece it belongs to (0: cloth or off the footprint). */
  box: [number, number, number, number];
  label: Int32Array;
  /** Per rigid piece (index = label - 1): its pixel count. */
  sizes: number[];
  /** Per side: the largest off-garment piece's share of the footprint's core (q < CORE, where the warp is strong) on the person. */
  largest: [number, number];
  /** Per side: share of the footprint's in-frame pixels on the person. */
  onPerson: [number, number];
}

export function chestPieces(src: RawImage, matte: Matte, region: BustRegion): ChestPieces {
  const scale = matte.width / src.width;
  const box = regionBox(region, src.width, src.height);
  const [x0, y0, x1, y1] = box;
  const w = x1 - x0 + 1;
  const h = y1 - y0 + 1;
  const side = new Int8Array(w * h).fill(-1);
  const core = new Uint8Array(w * h);
  const coreOn = [0, 0];
  const onMatte = new Uint8Array(w * h);
  const inFrame = [0, 0];
  const onP = [0, 0];
  const at = (x: number, y: number) => {
    const i = (y * src.width + x) * 3;
    const [R, G, B] = [src.data[i]!, src.data[i + 1]!, src.data[i + 2]!];
    // Offset by DARK levels: on dark cloth, a few levels of noise are not a change of hue.
    const sum = R + G + B + 3 * DARK;
    return [(R + DARK) / sum, (G + DARK) / sum, 0.299 * R + 0.587 * G + 0.114 * B + DARK] as const;
  };
  const samples: [number[], number[], number[]][] = [
    [[], [], []],
    [[], [], []],
  ];
  for (let y = y0; y <= y1; y++)
    for (let x = x0; x <= x1; x++) {
      // Every person pixel of the box is compared with the nearer side's garment (an object
      // across a footprint's rim is found whole); only footprint pixels are counted.
      const qs = [footprint(region, 0, x, y).q, footprint(region, 1, x, y).q];
      const s = qs[0]! <= qs[1]! ? 0 : 1;
      const k = (y - y0) * w + x - x0;
      side[k] = s;
      const inside = qs[s]! < 1;
      if (inside) inFrame[s]!++;
      if (matte.alpha[Math.floor(y * scale) * matte.width + Math.floor(x * scale)]! <= 128) continue;
      onMatte[k] = 1;
      if (!inside) continue;
      onP[s]!++;
      if (qs[s]! < CORE) {
        core[k] = 1;
        coreOn[s]!++;
      }
      const [a, b, l] = at(x, y);
      samples[s]![0].push(a);
      samples[s]![1].push(b);
      samples[s]![2].push(l);
    }
  const median = (v: number[]) => (v.length ? [...v].sort((a, b) => a - b)[v.length >> 1]! : 0);
  const garment = samples.map(([r, g, l]) => [median(r), median(g), median(l)]);
  // 1: off the garment; then flooded into pieces.
  const off = new Uint8Array(w * h);
  for (let y = y0; y <= y1; y++)
    for (let x = x0; x <= x1; x++) {
      const k = (y - y0) * w + x - x0;
      if (!onMatte[k]) continue;
      const [mr, mg, ml] = garment[side[k]!]!;
      const [a, b, l] = at(x, y);
      const ratio = l / ml!;
      if (Math.hypot(a - mr!, b - mg!) > OFF_CHROMA || ratio < LIGHT_RANGE[0] || ratio > LIGHT_RANGE[1])
        off[k] = 1;
    }
  // Letters on a name tag, gaps between ribbons: closed (dilated, then eroded) by a small
  // square so that one object is one piece, whatever its own colours.
  const closed = close(off, w, h, Math.max(1, Math.round(region.width * CLOSE_RADIUS)));
  for (let k = 0; k < w * h; k++) if (closed[k] && onMatte[k]) off[k] = 1;
  const label = new Int32Array(w * h);
  const sizes: number[] = [];
  const largest: [number, number] = [0, 0];
  const seen = new Uint8Array(w * h);
  const stack: number[] = [];
  const piece: number[] = [];
  for (let s0 = 0; s0 < w * h; s0++) {
    if (off[s0] !== 1 || seen[s0]) continue;
    seen[s0] = 1;
    stack.push(s0);
    piece.length = 0;
    const inCore = [0, 0];
    let border = false;
    while (stack.length) {
      const p = stack.pop()!;
      piece.push(p);
      if (core[p]) inCore[side[p]!]!++;
      const x = p % w;
      if (x === 0 || x === w - 1 || p < w || p >= w * (h - 1)) border = true;
      for (const q of [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, p - w, p + w])
        if (q >= 0 && q < w * h && off[q] === 1 && !seen[q]) {
          seen[q] = 1;
          stack.push(q);
        }
    }
    for (const s of [0, 1] as const) largest[s] = Math.max(largest[s], inCore[s]! / Math.max(1, coreOn[s]!));
    // A stiff piece: large enough not to be a print's dot, and ending inside the box (a shirt
    // or skin running on past the form is not moved whole: it sits where the form is flat).
    if (!border && piece.length >= MIN_RIGID_PIECE * Math.max(onP[0]!, onP[1]!)) {
      sizes.push(piece.length);
      for (const p of piece) label[p] = sizes.length;
    }
  }
  return {
    box,
    label,
    sizes,
    largest,
    onPerson: [onP[0]! / Math.max(1, inFrame[0]!), onP[1]! / Math.max(1, inFrame[1]!)],
  };
}

function rigidChestError(): EngineError {
  return new EngineError(
    "Something stiff covers the chest (a badge, straps, an arm or an object held in front) and cannot be reshaped naturally. Please upload a photo where the chest shows only clothing.",
    false,
    "chestCovered",
  );
}

function noUpperBodyError(): EngineError {
  return new EngineError(
    "The upper body could not be located reliably. Please upload a photo of one adult facing the camera, showing the shoulders and chest.",
    false,
    "noUpperBody",
  );
}

function chestOutOfFrameError(): EngineError {
  return new EngineError(
    "The photo ends above the chest, so there is nothing to reshape. Please upload a photo that shows the upper body down to below the chest.",
    false,
    "chestOutOfFrame",
  );
}

export function changeNotVisibleError(): EngineError {
  return new EngineError(
    "The change would barely show in this photo: the chest is too small in the frame or blends into the background. Please upload a closer photo of one adult, from the waist or chest up.",
    false,
    "changeNotVisible",
  );
}

/**
 * The change must show at phone size: the warp's largest motion over the person's pixels in
 * the photo at least {@link MIN_SHIFT} of the photo's long side (about 4 px on a phone's
 * 400 px wide view) and {@link MIN_SHIFT_PX} pixels. A person small in the frame (a full
 * figure, a group shot's distance) is refused before charging (`changeNotVisible`).
 */
const MIN_SHIFT = 0.01;
const MIN_SHIFT_PX = 4;

function bodyTurnedError(): EngineError {
  return new EngineError(
    "The body is turned sideways or leaning. Please upload a photo of one adult with the shoulders square to the camera.",
    false,
    "bodyTurned",
  );
}

/** Cheek to cheek on the mesh: the detector's box is a padded square whose size varies with scale. */
const faceWidthOf = (face: Face): number =>
  Math.hypot(face.mesh[454]![0] - face.mesh[234]![0], face.mesh[454]![1] - face.mesh[234]![1]);

/**
 * The first rules, in this order: the confirmation that the person is an adult who consented;
 * a face; no face that may be a minor's; exactly one face. The reason given is the real one:
 * a photo of one face with any minor signal is `mayBeMinor`; a group photo is `severalFaces`
 * unless one of its faces gives a strong minor signal (Human's age estimate under 20, or two
 * signals at once): the one-face proportion signal alone fires on small, old adult faces (two
 * of the five women in the 1850s daguerreotype), and either way the group is refused.
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
  if (faces.length === 1) {
    if (minorSignals(faces[0]!, body).mayBeMinor) throw minorError();
  } else if (
    faces.some((f) => {
      const m = minorSignals(f);
      return m.flags.includes("modelAge") || m.flags.length >= 2;
    })
  )
    throw minorError();
  return { src, face: requireOneFace(faces), body };
}

/** Both hips, when MoveNet sees them with confidence: the midpoint. */
function hips(body: Body | undefined): [number, number] | null {
  const find = (part: string) => body?.keypoints.find((k) => k.part === part && k.score >= MIN_HIP_SCORE);
  const l = find("leftHip");
  const r = find("rightHip");
  return l && r ? [(l.x + r.x) / 2, (l.y + r.y) / 2] : null;
}

/**
 * Bust enhancement input rules, in this order: the confirmation that the person is an adult
 * who consented; a face; no face that may be a minor's; exactly one face; shoulders found
 * (`chestOutOfFrame` when the photo ends just below the chin, `noUpperBody` otherwise) at a
 * plausible width for the face; shoulders square to the camera (`bodyTurned`); nobody else
 * beside the head; the form in the frame (`chestOutOfFrame`) and on the person's matte; cloth
 * over the chest (`chestCovered`); a change that shows at phone size (`changeNotVisible`). Run
 * before charging and as the render's first step.
 */
export async function inspect(req: RenderRequest): Promise<{
  src: RawImage;
  face: Face;
  region: BustRegion;
  pieces: ChestPieces;
  matte: Matte;
  shift: number;
}> {
  const { src, face, body } = await oneAdult(req);
  const faceWidth = faceWidthOf(face);
  const chin = Math.max(...face.mesh.map((p) => p[1]));

  const sh = shoulders(body);
  // No shoulders, and the photo ends within about a face width under the chin: a
  // head-and-shoulders crop (the chest is simply not in the picture).
  if (!sh) throw src.height - chin < faceWidth * 1.2 ? chestOutOfFrameError() : noUpperBodyError();
  const [sx, sy] = [sh.right[0] - sh.left[0], sh.right[1] - sh.left[1]];
  const width = Math.hypot(sx, sy);
  // The shoulders 1.6 to 4.5 face widths apart (adults measure about 2.4), or the keypoints
  // are not a torso we can trust.
  if (width < faceWidth * 1.6 || width > faceWidth * 4.5) throw noUpperBodyError();
  // Square to the camera: the shoulder line nearly level, both shoulders below the chin.
  if (
    Math.abs(Math.atan2(sy, Math.abs(sx))) > MAX_TILT ||
    Math.min(sh.left[1], sh.right[1]) < chin - faceWidth * 0.3
  )
    throw bodyTurnedError();
  const matte = await personMatte(src);
  if (!aloneInFrame(matte, src, face, faceWidth)) throw severalPeopleError();

  // Along the shoulder line, pointing to the image's right; down the torso, perpendicular to it.
  const along: [number, number] = sx >= 0 ? [sx / width, sy / width] : [-sx / width, -sy / width];
  const down: [number, number] = [-along[1], along[0]];
  const mid = [(sh.left[0] + sh.right[0]) / 2, (sh.left[1] + sh.right[1]) / 2] as const;
  const hip = hips(body);
  const measured = hip ? (hip[0] - mid[0]) * down[0] + (hip[1] - mid[1]) * down[1] : NaN;
  const hipsSeen = hip !== null && measured > width * TORSO_RANGE[0] * 0.8;
  const torso = hipsSeen
    ? Math.min(TORSO_RANGE[1], Math.max(TORSO_RANGE[0], measured / width)) * width
    : TORSO * width;
  const centre = (side: number): [number, number] => [
    mid[0] + down[0] * torso * BELOW_SHOULDERS + along[0] * width * OFF_MIDLINE * side,
    mid[1] + down[1] * torso * BELOW_SHOULDERS + along[1] * width * OFF_MIDLINE * side,
  ];
  const region: BustRegion = {
    centres: [centre(-1), centre(1)],
    shoulderMid: [mid[0], mid[1]],
    width,
    along,
    down,
    torso,
    hipsSeen,
  };
  // The form in the frame: each fullest point at most BELOW_EDGE of the lower curve below the
  // bottom edge, and its sides inside the photo.
  for (const [x, y] of region.centres) {
    if (y > src.height + BELOW_EDGE * AXES.down * width) throw chestOutOfFrameError();
    if (x - width * 0.12 < 0 || x + width * 0.12 > src.width) throw noUpperBodyError();
  }
  const pieces = chestPieces(src, matte, region);
  const scaleX = matte.width / src.width;
  const scaleY = matte.height / src.height;
  if (Math.min(...pieces.onPerson) < MIN_ON_PERSON) throw noUpperBodyError();
  // Mostly cloth: nothing stiff covering a large part of either side.
  if (Math.max(...pieces.largest) > MAX_RIGID) throw rigidChestError();
  // A change that shows: the warp's motion over the person, in the frame.
  const shift = visibleShift(
    region,
    src.width,
    src.height,
    (x, y) => matte.alpha[Math.floor(y * scaleY) * matte.width + Math.floor(x * scaleX)]! > 128,
  );
  if (shift < Math.max(MIN_SHIFT_PX, MIN_SHIFT * Math.max(src.width, src.height)))
    throw changeNotVisibleError();
  return { src, face, region, pieces, matte, shift };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));

/**
 * The rules every engine obeys (ADR 008): the adult's confirmation, a face, no sign of a
 * minor, one face and nobody else beside the head. Locating the chest for the warp
 * (noUpperBody, chestOutOfFrame, bodyTurned, chestCovered) is the local engine's limit.
 */
export async function safety(req: RenderRequest): Promise<void> {
  const { src, face } = await oneAdult(req);
  if (!aloneInFrame(await personMatte(src), src, face, faceWidthOf(face))) throw severalPeopleError();
}
