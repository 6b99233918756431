import type { RawImage } from "../../shared/image-io";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import type { DetectedObject, Face } from "../../vision/human";
import { facesOfFirstImage } from "../../shared/face-rules";
import { findSubject } from "../../shared/subject";

export function noSubjectError(): EngineError {
  return new EngineError(
    "No person, pet or object was found in this photo. Please upload a photo with one clear subject.",
    false,
    "noSubject",
  );
}

/**
 * Figure input rule: a subject. A person whose face is found becomes the figure; a photo
 * without a face needs one clear pet or object the detector names. Checked before charging
 * and as the render's first step.
 */
export async function inspect(
  req: RenderRequest,
): Promise<{ src: RawImage; face: Face | null; faces: Face[]; subject: DetectedObject | null }> {
  const { src, faces } = await facesOfFirstImage(req, 1000);
  if (faces[0]) return { src, face: faces[0], faces, subject: null };
  const subject = await findSubject(src);
  if (!subject) throw noSubjectError();
  return { src, face: null, faces, subject };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));
