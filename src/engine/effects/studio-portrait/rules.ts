import type { RawImage } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import type { Face } from "../../vision/human";
import { facesOfFirstImage, notFrontal, turnedPast } from "../../shared/face-rules";
import { requireMainFace } from "../../shared/portrait/frame";

/**
 * Turned further than this (radians of yaw, about 29 degrees) the local garment cannot join
 * the head: the tee is drawn facing the camera on the neck under the chin, while a head in
 * three-quarter or profile view has its neck behind the jaw (a gap between ear and collar,
 * the far cheek cut away). The portraits of the scoring set turn up to 0.23; the cameraman in
 * three-quarter view 0.78.
 */
export const MAX_YAW = 0.5;
/**
 * The nose tip's place between the two cheek edges of the mesh (0 one edge, 1 the other):
 * outside this band the face is nearly in profile whatever the yaw estimate says.
 */
const NOSE_BAND: [number, number] = [0.12, 0.88];

export function turnedTooFar(face: Face): boolean {
  return turnedPast(face, MAX_YAW, NOSE_BAND);
}

/**
 * Studio portrait input rules: one main face, not turned further than {@link MAX_YAW}.
 * Smaller faces well away from it (bystanders) are removed by the render; a group (another
 * face nearly as large, or too close to cut away cleanly) is refused (severalFaces) rather
 * than blacked out. Checked before charging and as the render's first step.
 */
export async function inspect(req: RenderRequest): Promise<{ src: RawImage; face: Face; others: Face[] }> {
  const { src, faces } = await facesOfFirstImage(req);
  const { main, others } = requireMainFace(faces);
  if (turnedTooFar(main)) throw notFrontal();
  return { src, face: main, others };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));

/**
 * Every engine makes the portrait of one main person (ADR 008): the same rule on any engine.
 * A turned head is the local engine's limit (a hosted model re-poses it), so not here.
 */
export async function safety(req: RenderRequest): Promise<void> {
  const { faces } = await facesOfFirstImage(req);
  requireMainFace(faces);
}
