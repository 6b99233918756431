import type { RenderRequest } from "@/core/ports/renderer";
import type { RawImage } from "../../shared/image-io";
import type { Face } from "../../vision/human";
import { personMatte } from "../../vision/human";
import { inspect as inspectHead } from "../../shared/hair/rules";
import { requireBareHead } from "../../shared/hair/headwear";

/**
 * One face whose hair is restyled: the shared hair rules (`check` on the local engine,
 * `safety` on any engine: ADR 008), and, on the local engine, nothing over the hairline (the
 * page asks for that): a cap's crown would be cut away as hair and the hair under it kept.
 * Checked before charging; the render runs the same check on the same pixels.
 */
export { safety } from "../../shared/hair/rules";

export async function inspect(req: RenderRequest): Promise<{ src: RawImage; face: Face; matte: Buffer }> {
  const { src, face } = await inspectHead(req);
  const matte = (await personMatte(src)).alpha;
  requireBareHead(src, face, matte);
  return { src, face, matte };
}

export const check = async (req: RenderRequest): Promise<void> => void (await inspect(req));
