/**
 * Runs in a worker thread of the engine pool: renders one request with the local engine,
 * or checks a request's input rules before it is charged (the named export `check`).
 * EngineErrors cross the thread boundary as plain data ({engineError: {reason, retryable}}),
 * since class identity does not survive structured cloning.
 */
import { engineDebugDelayMs } from "@/config/env";
import { ANY_ENGINE_INPUT_CHECKS, LOCAL_INPUT_CHECKS } from "../../effects/local";
import { FREE_FORM_INPUT_CHECKS } from "../../shared/free-form-rules";
import { LocalProvider } from "./local-provider";
import { explicitShare, nsfwScores } from "../../vision/nsfw";
import { nsfwError } from "./safety";
import { threadFootprintMb } from "./footprint";
import { EngineError, type RenderRequest, type RenderResult } from "@/core/ports/renderer";

const provider = new LocalProvider();
/** Test knob (fault tests kill a worker mid-render): a pause before each render. Default 0. */
const debugDelayMs = engineDebugDelayMs();

type Refusal = { ok: false; engineError: { reason: string; retryable: boolean; code: string } };
/** Every answer says how much memory the thread now holds (footprint.ts), in MB. */
type Footprint = { footprintMb: number };
export type WorkerAnswer = ({ ok: true; result: RenderResult } | Refusal) & Footprint;
export type CheckAnswer = ({ ok: true } | Refusal) & Footprint;

function refusal(err: unknown): Refusal {
  if (err instanceof EngineError)
    return { ok: false, engineError: { reason: err.reason, retryable: err.retryable, code: err.code } };
  throw err;
}

const measured = <T>(answer: T): T & Footprint => ({ ...answer, footprintMb: threadFootprintMb() });

export default async function renderInWorker(request: RenderRequest): Promise<WorkerAnswer> {
  try {
    if (debugDelayMs > 0) await new Promise((r) => setTimeout(r, debugDelayMs));
    return measured({ ok: true as const, result: await provider.render(request) });
  } catch (err) {
    return measured(refusal(err));
  }
}

/** Which of an effect's input rules: all of them (the local engine renders), or those every engine obeys. */
export type RuleScope = "local" | "anyEngine";

export async function check(request: RenderRequest & { rules?: RuleScope }): Promise<CheckAnswer> {
  try {
    const table = request.rules === "anyEngine" ? ANY_ENGINE_INPUT_CHECKS : LOCAL_INPUT_CHECKS;
    await (table[request.effectId] ?? FREE_FORM_INPUT_CHECKS[request.effectId])?.(request);
    return measured({ ok: true as const });
  } catch (err) {
    return measured(refusal(err));
  }
}

/** A content-safety screen: every image under the threshold of explicit content, or refused. */
export interface ScreenRequest {
  images: RenderRequest["images"];
  threshold: number;
  /** "input": the user's photo (refused before charging); "output": a generated image. */
  kind: "input" | "output";
}

export async function screen(request: ScreenRequest): Promise<CheckAnswer> {
  try {
    for (const image of request.images) {
      const share = explicitShare(await nsfwScores(image.bytes));
      if (share >= request.threshold) throw nsfwError(request.kind);
    }
    return measured({ ok: true as const });
  } catch (err) {
    return measured(refusal(err));
  }
}
