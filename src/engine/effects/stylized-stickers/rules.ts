import type { RawImage } from "../../shared/image-io";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import type { DetectedObject, Face } from "../../vision/human";
import { facesOfFirstImage } from "../../shared/face-rules";
import { findSubject } from "../../shared/subject";

/** Working size: the sticker is drawn at this long side. */
export const WORK_SIDE = 1024;

export function noSubjectError(): EngineError {
  return new EngineError(
    "No person, pet or object was found in this photo. Please upload a photo with one clear subject.",
    false,
    "noSubject",
  );
}

/**
 * Sticker input rule: a subject. Every person whose face is found becomes the sticker; a
 * photo without a face needs one clear pet or object the detector names. Checked before
 * charging and as the render's first step.
 */
export async function inspect(
  req: RenderRequest,
): Promise<{ src: RawImage; faces: Face[]; subject: DetectedObject | null }> {
  const { src, faces } = await facesOfFirstImage(req, WORK_SIDE);
  if (faces.length) return { src, faces, subject: null };
  const subject = await findSubject(src);
  if (!subject) throw noSubjectError();
  return { src, faces, subject };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));
