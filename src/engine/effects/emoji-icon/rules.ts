import type { RawImage } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import type { Face } from "../../vision/human";
import { facesOfFirstImage, PEOPLE_MAX_SIDE, requireFace } from "../../shared/face-rules";

/** Emoji input rule: a face (the largest is drawn). Checked before charging and as the render's first step. */
export async function inspect(req: RenderRequest): Promise<{ src: RawImage; face: Face; faces: Face[] }> {
  const { src, faces } = await facesOfFirstImage(req, PEOPLE_MAX_SIDE);
  return { src, face: requireFace(faces), faces };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));

/** Every engine turns a face into the emoji (ADR 008): the same rule on any engine. */
export const safety = check;
