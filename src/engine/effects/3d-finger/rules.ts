import type { RawImage } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import type { Face } from "../../vision/human";
import { facesOfFirstImage, requireFace } from "../../shared/face-rules";

/** Figure input rule: a face (the person holding it becomes the figure). Checked before charging and as the render's first step. */
export async function inspect(req: RenderRequest): Promise<{ src: RawImage; face: Face; faces: Face[] }> {
  const { src, faces } = await facesOfFirstImage(req, 1000);
  return { src, face: requireFace(faces), faces };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));
