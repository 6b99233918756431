import type { RenderRequest } from "@/core/ports/renderer";
import { facesOrSubject } from "../../shared/subject";

/** Working size: the sticker is drawn at this long side. */
export const WORK_SIDE = 1024;

/**
 * Sticker input rule: a subject. Every person whose face is found becomes the sticker; a
 * photo without a face needs one clear pet or object the detector names. Checked before
 * charging and as the render's first step.
 */
export const inspect = (req: RenderRequest) => facesOrSubject(req, WORK_SIDE);

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));
