import type { RawImage } from "../../shared/image-io";
import type { RenderRequest } from "@/core/ports/renderer";
import type { Face } from "../../vision/human";
import { facesOfFirstImage } from "../../shared/face-rules";
import { requireMainFace } from "../../shared/portrait/frame";

/**
 * Studio portrait input rule: one main face. Smaller faces well away from it (bystanders)
 * are removed by the render; a group (another face nearly as large, or too close to cut
 * away cleanly) is refused (severalFaces) rather than blacked out. Checked before charging.
 */
export async function inspect(req: RenderRequest): Promise<{ src: RawImage; face: Face; others: Face[] }> {
  const { src, faces } = await facesOfFirstImage(req);
  const { main, others } = requireMainFace(faces);
  return { src, face: main, others };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));

/** Every engine makes the portrait of one main person (ADR 008): the same rule on any engine. */
export const safety = check;
