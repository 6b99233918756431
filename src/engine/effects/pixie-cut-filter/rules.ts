import type { RenderRequest } from "@/core/ports/renderer";
import type { RawImage } from "../../shared/image-io";
import type { Face } from "../../vision/human";
import { personMatte } from "../../vision/human";
import { inspect as inspectHead } from "../../shared/hair/rules";
import { requireBareHead } from "../../shared/hair/headwear";
import { hairRegion, type HairRegion } from "../../shared/hair/hair-region";
import { requireFaceUncovered } from "../../shared/hair/uncover";
import { requireHairApart } from "../../shared/hair/others";

/**
 * One face whose hair is restyled: the shared hair rules (`check` on the local engine,
 * `safety` on any engine: ADR 008), and, on the local engine, nothing over the hairline (the
 * page asks for that): a cap's crown would be cut away as hair and the hair under it kept.
 * Nor hair over most of the face (`hairOverFace`, shared/hair/uncover.ts). Checked before
 * charging; the render runs the same checks on the same pixels.
 */
export { safety } from "../../shared/hair/rules";

export async function inspect(
  req: RenderRequest,
): Promise<{ src: RawImage; face: Face; matte: Buffer; hair: HairRegion }> {
  const { src, face } = await inspectHead(req);
  const matte = (await personMatte(src)).alpha;
  requireBareHead(src, face, matte);
  // Hair over most of the face: the skin behind it would have to be invented (`hairOverFace`).
  const hair = hairRegion(src, face, matte);
  // Someone else's head or hair against this hair (`hairTouchesOther`, shared/hair/others.ts).
  requireHairApart(hair.others);
  requireFaceUncovered(hair);
  return { src, face, matte, hair };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));
