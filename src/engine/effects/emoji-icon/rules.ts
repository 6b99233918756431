import type { RawImage } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import type { Face } from "../../vision/human";
import {
  facesOfFirstImage,
  notFrontal,
  PEOPLE_MAX_SIDE,
  requireFace,
  turnedPast,
} from "../../shared/face-rules";

/** Emoji input rule: a face (the largest is drawn). Every engine obeys it. */
export async function inspect(req: RenderRequest): Promise<{ src: RawImage; face: Face; faces: Face[] }> {
  const { src, faces } = await facesOfFirstImage(req, PEOPLE_MAX_SIDE);
  return { src, face: requireFace(faces), faces };
}

/**
 * Turned further than this (radians, about 35 degrees), the local engine cannot draw the face:
 * it draws both eyes, the brows and the mouth from the mesh, and past it the far eye is hidden
 * (a three-quarter view, about 15 degrees, is drawn).
 */
export const MAX_YAW = 0.6;

/**
 * A profile: turned past {@link MAX_YAW}, or the nose tip outside the span between the two
 * cheeks' mesh points (the far cheek hidden behind it).
 */
export function isProfile(face: Face): boolean {
  return turnedPast(face, MAX_YAW, [0, 1]);
}

/**
 * The local engine's rules: a face, and not a profile (drawn from the mesh, a profile's icon
 * broke: its face painted as a hair mass with one floating eye). Checked before charging and
 * as the render's first step.
 */
export async function inspectLocal(
  req: RenderRequest,
): Promise<{ src: RawImage; face: Face; faces: Face[] }> {
  const found = await inspect(req);
  if (isProfile(found.face)) throw notFrontal();
  return found;
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspectLocal(req));

/** Every engine turns a face into the emoji (ADR 008): the same rule on any engine. */
export const safety = async (req: RenderRequest): Promise<void> => void (await inspect(req));
