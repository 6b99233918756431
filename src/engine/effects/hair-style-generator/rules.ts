import type { RenderRequest } from "@/core/ports/renderer";
import { prepare } from "./render";

/**
 * One face whose hair is restyled: the shared hair rules (`check` on the local engine,
 * `safety` on any engine: ADR 008), and, on the local engine, hair that does not hide most
 * of the face (`hairOverFace`: the bare cheek behind a lock is continued from the skin around
 * it, which only holds for a lock over part of one cheek). Checked before charging, on the
 * same tile the render draws on.
 */
export { safety } from "../../shared/hair/rules";

export const check = async (req: RenderRequest): Promise<void> => void (await prepare(req));
