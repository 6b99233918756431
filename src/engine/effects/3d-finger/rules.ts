import type { RenderRequest } from "@/core/ports/renderer";
import { facesOrSubject } from "../../shared/subject";

/**
 * Figure input rule: a subject. A person whose face is found becomes the figure; a photo
 * without a face needs one clear pet or object the detector names. Checked before charging
 * and as the render's first step.
 */
export async function inspect(req: RenderRequest) {
  const found = await facesOrSubject(req, 1000);
  return { ...found, face: found.faces[0] ?? null };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));
