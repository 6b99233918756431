import type { RawImage } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import type { Face } from "../../vision/human";
import { facesOfFirstImage, requireFace } from "../../shared/face-rules";

/** Studio portrait input rule: a face (the largest one is lit). Checked before charging. */
export async function inspect(req: RenderRequest): Promise<{ src: RawImage; face: Face }> {
  const { src, faces } = await facesOfFirstImage(req);
  return { src, face: requireFace(faces) };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));
