import { getEffect } from "@/core/catalogue";
import { LOCAL_EFFECTS } from "../../effects/local";
import { EngineError, type Renderer, type RenderRequest, type RenderResult } from "@/core/ports/renderer";

export const LOCAL_PROVIDER_ID = "local";
export const LOCAL_MODEL = "photofx-local-1";

/**
 * The embedded CPU engine: sharp (and, for people effects, on-device models). Needs no
 * key and no network. Effects not implemented yet fail with a clear reason.
 */
export class LocalProvider implements Renderer {
  readonly id = LOCAL_PROVIDER_ID;

  supports(effectId: string): boolean {
    return effectId in LOCAL_EFFECTS;
  }

  async render(request: RenderRequest, signal?: AbortSignal): Promise<RenderResult> {
    const effect = getEffect(request.effectId);
    if (!effect) throw new EngineError(`Unknown effect "${request.effectId}".`);
    const renderEffect = LOCAL_EFFECTS[request.effectId];
    if (!renderEffect) {
      throw new EngineError(
        `The "${effect.title}" effect is not available yet on this server's local engine.`,
        false,
        "notAvailable",
      );
    }
    signal?.throwIfAborted();
    const out = await renderEffect(request);
    return {
      bytes: out.bytes,
      mime: "image/png",
      width: out.width,
      height: out.height,
      provider: this.id,
      model: LOCAL_MODEL,
    };
  }
}
