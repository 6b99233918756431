import type { RawImage } from "../../shared/image-io";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import type { Face } from "../../vision/human";
import { facesOfFirstImage, requireFace, requireFrontal } from "../../shared/face-rules";

/**
 * A second face at least this share of the main face's width counts as another subject
 * (smaller ones are bystanders; ones centred inside the main face are duplicate detections).
 */
const SECOND_FACE = 0.6;

function isOtherSubject(main: Face, other: Face): boolean {
  const [x, y, w, h] = main.box;
  const cx = other.box[0] + other.box[2] / 2;
  const cy = other.box[1] + other.box[3] / 2;
  const inside = cx > x && cx < x + w && cy > y && cy < y + h;
  return !inside && other.box[2] >= w * SECOND_FACE;
}

/** One subject: a face, and no other face of similar size beside it. */
export function requireSubject(faces: Face[]): Face {
  const face = requireFace(faces);
  if (faces.slice(1).some((f) => isOtherSubject(face, f)))
    throw new EngineError(
      "This photo shows several faces. Please upload a photo of just you.",
      false,
      "severalFaces",
    );
  return face;
}

/**
 * Caricature input rules: one subject's face, facing the camera (the exaggeration moves the
 * face mesh's features apart; on a face turned away it has nothing to work with and the
 * photo came back unchanged). Checked before charging and as the render's first step.
 */
export async function inspect(req: RenderRequest): Promise<{ src: RawImage; face: Face }> {
  const { src, faces } = await facesOfFirstImage(req);
  return { src, face: requireFrontal(requireSubject(faces)) };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));

/**
 * What any engine must be given (ADR 008): one subject's face, as the caricature is of the
 * person. Facing the camera is the local engine's limit (its mesh warp), not a hosted model's.
 */
export async function safety(req: RenderRequest): Promise<void> {
  const { faces } = await facesOfFirstImage(req);
  requireSubject(faces);
}
