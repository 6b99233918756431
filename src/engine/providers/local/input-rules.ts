import { InputRefusal, type InputRules } from "@/core/ports/input-rules";
import { ANY_ENGINE_INPUT_CHECKS, LOCAL_INPUT_CHECKS } from "../../effects/local";
import { FREE_FORM_INPUT_CHECKS } from "../../shared/free-form-rules";
import type { EnginePool } from "./pool";
import type { RuleScope } from "./pool-worker";
import { EngineError } from "@/core/ports/renderer";
import { LOCAL_PROVIDER_ID } from "./local-provider";

/**
 * The effects' input rules (their rules.ts) and the content-safety screen, run in engine
 * worker threads so the models they need load there, once, and never block the web server's
 * event loop. `pool` is called on the first check: a process that never sees a people effect
 * starts no thread.
 *
 * Rules belong to the engine that renders (ADR 008): when `plannedEngine` names the local
 * engine for the effect, every rule of its rules.ts runs (`check`); with a hosted engine
 * planned, only the rules every engine obeys (`safety`: consent, minors, what any engine
 * needs). Should the task fall back to the local engine, its render runs the full rules
 * first and a refusal fails the task with a refund.
 */
export function poolInputRules(
  pool: () => EnginePool,
  /** Content safety: each photo is screened first, refused at this share of explicit content; null: off. */
  nsfwThreshold: number | null = null,
  /** The engine expected to render an effect (the router's first candidate); default: the local engine. */
  plannedEngine: (effectId: string) => string = () => LOCAL_PROVIDER_ID,
): InputRules {
  /** Which of the effect's rules apply now (the admin may move the effect to another engine at any time). */
  const scopeFor = (effectId: string): RuleScope | null => {
    const scope: RuleScope = plannedEngine(effectId) === LOCAL_PROVIDER_ID ? "local" : "anyEngine";
    const table = scope === "local" ? LOCAL_INPUT_CHECKS : ANY_ENGINE_INPUT_CHECKS;
    // Free-form edits (the generic generate call) have their own rule whatever renders them.
    return effectId in table || effectId in FREE_FORM_INPUT_CHECKS ? scope : null;
  };
  return {
    appliesTo: (effectId) => nsfwThreshold !== null || scopeFor(effectId) !== null,
    async check({ effectId, images, options, prompt }) {
      try {
        if (nsfwThreshold !== null) await pool().screen({ images, threshold: nsfwThreshold, kind: "input" });
        const scope = scopeFor(effectId);
        if (scope) await pool().check({ effectId, route: "v1", images, options, prompt, seed: 0 }, scope);
      } catch (err) {
        if (err instanceof EngineError && !err.retryable) throw new InputRefusal(err.reason, err.code);
        throw err;
      }
    },
  };
}
