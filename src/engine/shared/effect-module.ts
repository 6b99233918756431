import type { RenderRequest, RenderResult } from "@/core/ports/renderer";
import type { EffectOutput } from "./image-io";

/** What an effect's render.ts exports as `render`: one request in, one encoded image out. */
export type EffectRenderer = (req: RenderRequest) => Promise<EffectOutput>;

/**
 * What an effect's rules.ts exports as `check`: rejects with the same EngineError its
 * render would (no face, several faces...), before any credit is charged.
 */
export type InputCheck = (req: RenderRequest) => Promise<void>;

/**
 * What an effect's finish.ts exports as `finish`: applied to every image a generative
 * backend returns for the effect, it returns the image with the effect's measurable promise
 * kept (e.g. reduced to 16 colours, laid out on a Letter page) or rejects with an
 * EngineError when the output cannot keep it (the task fails with a refund). Keeps the
 * provider's metadata when it re-encodes.
 */
export type HostedFinish = (output: RenderResult, request: RenderRequest) => Promise<RenderResult>;
