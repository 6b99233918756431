import type { RawImage } from "../image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import type { Face } from "../../vision/human";
import { facesOfFirstImage, requireFrontal, requireOneFace } from "../face-rules";

/**
 * The hair effects' input rule: exactly one face (whose hair is restyled), facing the camera:
 * the new hair is fitted to a frontal head (a three-quarter head's crown and nape lie outside
 * the shapes, which left a pale hole at the back of a cameraman's head). Checked before charging.
 */
export async function inspect(req: RenderRequest): Promise<{ src: RawImage; face: Face }> {
  const { src, faces } = await facesOfFirstImage(req);
  return { src, face: requireFrontal(requireOneFace(faces)) };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));

/**
 * What any engine must be given (ADR 008): exactly one face. Facing the camera is the local
 * engine's limit (its hair shapes are fitted to a frontal head), not a hosted model's.
 */
export async function safety(req: RenderRequest): Promise<void> {
  const { faces } = await facesOfFirstImage(req);
  requireOneFace(faces);
}
