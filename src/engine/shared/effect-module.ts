import type { RenderRequest } from "@/core/ports/renderer";
import type { EffectOutput } from "./image-io";

/** What an effect's render.ts exports as `render`: one request in, one encoded image out. */
export type EffectRenderer = (req: RenderRequest) => Promise<EffectOutput>;

/**
 * What an effect's rules.ts exports as `check`: rejects with the same EngineError its
 * render would (no face, several faces...), before any credit is charged.
 */
export type InputCheck = (req: RenderRequest) => Promise<void>;
