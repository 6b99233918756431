import path from "node:path";
import { Piscina } from "piscina";
import { LOCAL_EFFECTS } from "../../effects/local";
import type { CheckAnswer, ScreenRequest, WorkerAnswer } from "./pool-worker";
import { EngineError, type Renderer, type RenderRequest } from "@/core/ports/renderer";

/** The local engine as a Renderer that renders off the web server's event loop, in worker threads. */
export interface EnginePool extends Renderer {
  /** Checks the request's input rules (effects' rules.ts); rejects with their EngineError. */
  check(req: RenderRequest): Promise<void>;
  /** Content safety (vision/nsfw.ts): rejects with an EngineError (code "nsfw") at the threshold. */
  screen(req: ScreenRequest): Promise<void>;
  close(): Promise<void>;
}

/**
 * A piscina pool running src/engine/pool-worker.ts. Workers are TypeScript loaded through
 * tsx (execArgv), the same way in production, tests and scripts. An aborted render
 * (task deadline) is cancelled in the pool.
 */
export function createEnginePool(opts: { threads: number }): EnginePool {
  const pool = new Piscina({
    filename: path.join(__dirname, "pool-worker.ts"),
    minThreads: 1,
    maxThreads: opts.threads,
    idleTimeout: 60_000,
    execArgv: [...process.execArgv.filter((a) => !a.startsWith("--inspect")), "--import", "tsx"],
  });
  return {
    id: "local",
    supports: (effectId) => effectId in LOCAL_EFFECTS,
    async render(req, signal) {
      let answer: WorkerAnswer;
      try {
        answer = (await pool.run(req, { signal })) as WorkerAnswer;
      } catch (err) {
        if (signal?.aborted) throw new EngineError("The render was cancelled at the task's deadline.", true);
        throw err;
      }
      if (!answer.ok) throw refusal(answer.engineError);
      return answer.result;
    },
    async check(req) {
      const answer = (await pool.run(req, { name: "check" })) as CheckAnswer;
      if (!answer.ok) throw refusal(answer.engineError);
    },
    async screen(req) {
      const answer = (await pool.run(req, { name: "screen" })) as CheckAnswer;
      if (!answer.ok) throw refusal(answer.engineError);
    },
    close: () => pool.destroy(),
  };
}

const refusal = (e: { reason: string; retryable: boolean; code: string }) =>
  new EngineError(e.reason, e.retryable, e.code);
