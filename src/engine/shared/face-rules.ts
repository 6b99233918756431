import sharp from "sharp";
import { decodeRaw, firstImage, type RawImage } from "./image-io";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { detectFaces, type Face } from "../vision/human";

/**
 * The people effects' input rules, shared so that every effect words a refusal the same
 * way and the pre-charge check (effects' `rules.ts`) and the render agree: both run the
 * same decode and the same detector on the same pixels.
 */

/** Working size of the people effects: faces are found on these pixels. */
export const PEOPLE_MAX_SIDE = 1600;

/** A photo's upright RGB pixels at an effect's working size (the people effects' by default). */
export function decodePortrait(bytes: Uint8Array, maxSide = PEOPLE_MAX_SIDE): Promise<RawImage> {
  return decodeRaw(bytes, { channels: 3, flatten: true, maxSide });
}

/** The request's first image decoded at the effect's working size, with its faces (largest first). */
export async function facesOfFirstImage(
  req: RenderRequest,
  maxSide = PEOPLE_MAX_SIDE,
): Promise<{ src: RawImage; faces: Face[] }> {
  const src = await decodePortrait(firstImage(req), maxSide);
  const { faces } = await detectFaces(src);
  return { src, faces };
}

export function noFaceError(): EngineError {
  return new EngineError("No face was found in this photo. Please upload a clear portrait.", false, "noFace");
}

/** At least one face; returns the largest. */
export function requireFace(faces: Face[]): Face {
  const face = faces[0];
  if (!face) throw noFaceError();
  return face;
}

/** Exactly one face. */
export function requireOneFace(faces: Face[]): Face {
  const face = requireFace(faces);
  if (faces.length > 1) {
    throw new EngineError(
      "This photo shows several faces. Please upload a photo of just you.",
      false,
      "severalFaces",
    );
  }
  return face;
}

/** Turned further than this (radians, about 20 degrees) is not frontal. */
export const MAX_TURN = 0.35;

/** The refusal of a face turned away from the camera. */
export function notFrontal(): EngineError {
  return new EngineError(
    "The face is turned away from the camera. Please upload a photo facing forward.",
    false,
    "notFrontal",
  );
}

/** The face looks at the camera (yaw and pitch within {@link MAX_TURN}). */
export function requireFrontal(face: Face): Face {
  if (Math.abs(face.rotation.yaw) > MAX_TURN || Math.abs(face.rotation.pitch) > MAX_TURN) throw notFrontal();
  return face;
}

/**
 * Turned past `maxYaw` (radians), or the nose tip outside `noseBand`: where it sits between
 * the two cheeks' mesh points, 0 at one and 1 at the other (0.5 frontal; outside 0-1 the far
 * cheek is hidden behind it).
 */
export function turnedPast(face: Face, maxYaw: number, noseBand: readonly [number, number]): boolean {
  const m = face.mesh;
  const span = m[454]![0] - m[234]![0];
  const nose = Math.abs(span) > 1 ? (m[1]![0] - m[234]![0]) / span : 0.5;
  return Math.abs(face.rotation.yaw) > maxYaw || nose < noseBand[0] || nose > noseBand[1];
}

/** The encoded image is at least `min` pixels on each side (read from its header). */
export async function requireMinSide(bytes: Uint8Array, min: number): Promise<void> {
  const meta = await sharp(Buffer.from(bytes)).metadata();
  if (Math.min(meta.width ?? 0, meta.height ?? 0) < min) {
    throw new EngineError(
      `The photo is too small: it needs to be at least ${min} pixels on each side.`,
      false,
      "tooSmall",
    );
  }
}
