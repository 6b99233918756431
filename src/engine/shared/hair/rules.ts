import type { RawImage } from "../image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import type { Face } from "../../vision/human";
import { facesOfFirstImage, requireOneFace } from "../face-rules";

/** The hair effects' input rule: exactly one face (whose hair is restyled). Checked before charging. */
export async function inspect(req: RenderRequest): Promise<{ src: RawImage; face: Face }> {
  const { src, faces } = await facesOfFirstImage(req);
  return { src, face: requireOneFace(faces) };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));
