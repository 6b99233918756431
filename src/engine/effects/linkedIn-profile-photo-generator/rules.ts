import type { RenderRequest } from "@/core/ports/renderer";
import type { Face } from "../../vision/human";
import { firstImage, type RawImage } from "../../shared/image-io";
import { facesOfFirstImage, requireFrontal, requireMinSide } from "../../shared/face-rules";
import { requireMainFace } from "../../shared/portrait/frame";

/** Smallest accepted source side, in pixels. */
export const MIN_SIDE = 50;

/**
 * LinkedIn headshot input rules: at least {@link MIN_SIDE} px, one main face facing the
 * camera. Smaller faces well away from it (bystanders) are accepted and removed by the
 * render; another face as large, or close enough that cutting it away would tear the
 * subject, is a group photo and refused (severalFaces). Run before charging (the submit's
 * input check) and again as the render's first step.
 */
export async function inspect(req: RenderRequest): Promise<{ src: RawImage; face: Face; others: Face[] }> {
  await requireMinSide(firstImage(req), MIN_SIDE);
  const { src, faces } = await facesOfFirstImage(req);
  const { main, others } = requireMainFace(faces);
  return { src, face: requireFrontal(main), others };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));

/**
 * What any engine must be given (ADR 008): a photo of at least {@link MIN_SIDE} px with one
 * main face. Facing the camera is the local engine's limit (it keeps the pose); a hosted
 * model is asked for a headshot facing the camera.
 */
export async function safety(req: RenderRequest): Promise<void> {
  await requireMinSide(firstImage(req), MIN_SIDE);
  const { faces } = await facesOfFirstImage(req);
  requireMainFace(faces);
}
