import { InputRefusal, type InputRules } from "@/core/ports/input-rules";
import { LOCAL_INPUT_CHECKS } from "../../effects/local";
import type { EnginePool } from "./pool";
import { EngineError } from "@/core/ports/renderer";

/**
 * The effects' input rules (their rules.ts) and the content-safety screen, run in engine
 * worker threads so the models they need load there, once, and never block the web server's
 * event loop. `pool` is
 * called on the first check: a process that never sees a people effect starts no thread.
 */
export function poolInputRules(
  pool: () => EnginePool,
  /** Content safety: each photo is screened first, refused at this share of explicit content; null: off. */
  nsfwThreshold: number | null = null,
): InputRules {
  return {
    appliesTo: (effectId) => nsfwThreshold !== null || effectId in LOCAL_INPUT_CHECKS,
    async check({ effectId, images, options, prompt }) {
      try {
        if (nsfwThreshold !== null) await pool().screen({ images, threshold: nsfwThreshold, kind: "input" });
        if (effectId in LOCAL_INPUT_CHECKS)
          await pool().check({ effectId, route: "v1", images, options, prompt, seed: 0 });
      } catch (err) {
        if (err instanceof EngineError && !err.retryable) throw new InputRefusal(err.reason, err.code);
        throw err;
      }
    },
  };
}
