import { FREE_FORM_EDIT_ID } from "@/core/free-form";
import { EngineError, type RenderRequest } from "@/core/ports/renderer";
import { detectBodies, detectFaces } from "../vision/human";
import { minorSignals } from "../vision/minor-signal";
import { decodePortrait } from "./face-rules";

/**
 * The input rule of a free-form edit (the generic generate call without an effect), run
 * before charging like an effect's rules (ADR 008): an instruction can ask for anything, so a
 * photo in which any face may be a minor's (the same minor signal the people effects use) is
 * not edited free-form. Photos without a face (landscapes, products, pets) pass. The
 * content-safety screen and the prompt check run besides (input-rules.ts, core/free-form.ts).
 */
export function freeFormMinorError(): EngineError {
  return new EngineError(
    "This photo may show someone under 18. Free-form edits are only made to photos of adults; please choose an effect instead.",
    false,
    "freeFormMinor",
  );
}

export async function freeFormSafety(req: RenderRequest): Promise<void> {
  for (const image of req.images) {
    const src = await decodePortrait(image.bytes);
    const { faces } = await detectFaces(src, { age: true });
    if (faces.length === 0) continue;
    const body = faces.length === 1 ? (await detectBodies(src)).bodies[0] : undefined;
    if (faces.some((f) => minorSignals(f, f === faces[0] ? body : undefined).mayBeMinor))
      throw freeFormMinorError();
  }
}

/** The free-form ids' input checks, beside the effects' (pool-worker.ts, input-rules.ts). */
export const FREE_FORM_INPUT_CHECKS: Readonly<Record<string, (req: RenderRequest) => Promise<void>>> = {
  [FREE_FORM_EDIT_ID]: freeFormSafety,
};
