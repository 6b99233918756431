import type { RawImage } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import type { Face } from "../../vision/human";
import { facesOfFirstImage, requireFace } from "../../shared/face-rules";

/** Working size: the sticker is drawn at this long side. */
export const WORK_SIDE = 1024;

/** Sticker input rule: a face (every person holding one becomes the sticker). Checked before charging and as the render's first step. */
export async function inspect(req: RenderRequest): Promise<{ src: RawImage; face: Face; faces: Face[] }> {
  const { src, faces } = await facesOfFirstImage(req, WORK_SIDE);
  return { src, face: requireFace(faces), faces };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));
