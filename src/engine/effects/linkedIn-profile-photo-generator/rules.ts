import type { RenderRequest } from "@/core/ports/renderer";
import type { Face } from "../../vision/human";
import { firstImage, type RawImage } from "../../shared/image-io";
import { facesOfFirstImage, requireFrontal, requireMinSide, requireOneFace } from "../../shared/face-rules";

/** Smallest accepted source side, in pixels. */
export const MIN_SIDE = 50;

/**
 * LinkedIn headshot input rules: at least {@link MIN_SIDE} px, exactly one face, facing the
 * camera. Run before charging (the submit's input check) and again as the render's first step.
 */
export async function inspect(req: RenderRequest): Promise<{ src: RawImage; face: Face }> {
  await requireMinSide(firstImage(req), MIN_SIDE);
  const { src, faces } = await facesOfFirstImage(req);
  return { src, face: requireFrontal(requireOneFace(faces)) };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));
