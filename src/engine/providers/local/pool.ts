import path from "node:path";
import { Piscina } from "piscina";
import { LOCAL_EFFECTS } from "../../effects/local";
import type { CheckAnswer, RuleScope, ScreenRequest, WorkerAnswer } from "./pool-worker";
import { EngineError, type Renderer, type RenderRequest } from "@/core/ports/renderer";

/** The local engine as a Renderer that renders off the web server's event loop, in worker threads. */
export interface EnginePool extends Renderer {
  /**
   * Checks the request's input rules (effects' rules.ts): all of them by default, or with
   * "anyEngine" only those every engine obeys (ADR 008); rejects with their EngineError.
   */
  check(req: RenderRequest, rules?: RuleScope): Promise<void>;
  /** Content safety (vision/nsfw.ts): rejects with an EngineError (code "nsfw") at the threshold. */
  screen(req: ScreenRequest): Promise<void>;
  close(): Promise<void>;
}

export interface EnginePoolOptions {
  threads: number;
  /**
   * A thread whose footprint (its JavaScript heap plus the models' WebAssembly heaps, which
   * only grow) passes this many MB after a task is retired: the pool moves new work to fresh
   * threads and lets the old ones finish what they hold. 0 keeps threads however large.
   */
  memoryBudgetMb?: number;
  /**
   * The process's resident memory (MB) above which the threads are retired after a task whose
   * thread holds at least RECLAIMABLE_MB of models: the budget an operator reads in `ps`. The
   * threads' models are the only large memory the server can give back. 0 turns it off.
   */
  processBudgetMb?: number;
  /** The process's resident memory in MB (tests replace it). */
  processRssMb?: () => number;
  /** Seconds an idle thread (and the models it loaded) is kept; none are started before use. */
  idleSeconds?: number;
}

/**
 * A thread holding less than this (its heap with no model loaded is about 20-40 MB) is not
 * retired for the process budget: replacing it would give little back and reload models.
 */
export const RECLAIMABLE_MB = 100;

const processRssMb = () => process.memoryUsage.rss() / 1048576;

/**
 * A piscina pool running src/engine/pool-worker.ts. Workers are TypeScript loaded through
 * tsx (execArgv), the same way in production, tests and scripts. An aborted render
 * (task deadline) is cancelled in the pool.
 */
export function createEnginePool(opts: EnginePoolOptions): EnginePool & { readonly generation: number } {
  const start = () => ({
    pool: new Piscina({
      filename: path.join(__dirname, "pool-worker.ts"),
      minThreads: 0,
      maxThreads: opts.threads,
      idleTimeout: (opts.idleSeconds ?? 120) * 1000,
      execArgv: [...workerExecArgv(process.execArgv), "--import", "tsx"],
    }),
    /** Tasks given to these threads and not yet answered (running or queued). */
    inFlight: 0,
  });
  type Threads = ReturnType<typeof start>;
  let current = start();
  let generation = 0;
  const retiring = new Set<Promise<void>>();
  /** Retired threads still answering tasks they were given. */
  const draining = new Set<Threads>();
  /**
   * Closes retired threads once every task they were given has answered. Piscina's own
   * close() would wait only so long (30 s) and then terminate a long render, and drop what
   * still waits in the queue: a retirement must fail nobody's request.
   */
  const closeIfDone = (t: Threads) => {
    if (!draining.has(t) || t.inFlight > 0) return;
    draining.delete(t);
    const done = t.pool.close().catch(() => undefined);
    retiring.add(done);
    void done.then(() => retiring.delete(done));
  };
  const run = async (task: unknown, options: { signal?: AbortSignal; name?: string }) => {
    const t = current;
    t.inFlight++;
    try {
      return await t.pool.run(task, options);
    } finally {
      t.inFlight--;
      closeIfDone(t);
    }
  };
  /** Retires the current threads once a task reports a footprint over the budget. */
  const weigh = <T extends { footprintMb: number }>(answer: T): T => {
    const budget = opts.memoryBudgetMb ?? 0;
    const processBudget = opts.processBudgetMb ?? 0;
    const threadOver = budget > 0 && answer.footprintMb > budget;
    const processOver =
      processBudget > 0 &&
      answer.footprintMb >= RECLAIMABLE_MB &&
      (opts.processRssMb ?? processRssMb)() > processBudget;
    if (threadOver || processOver) {
      const old = current;
      draining.add(old);
      current = start();
      generation++;
      closeIfDone(old);
    }
    return answer;
  };
  return {
    id: "local",
    get generation() {
      return generation;
    },
    supports: (effectId) => effectId in LOCAL_EFFECTS,
    async render(req, signal) {
      let answer: WorkerAnswer;
      try {
        answer = weigh((await run(req, { signal })) as WorkerAnswer);
      } catch (err) {
        if (signal?.aborted) throw new EngineError("The render was cancelled at the task's deadline.", true);
        throw err;
      }
      if (!answer.ok) throw refusal(answer.engineError);
      return answer.result;
    },
    async check(req, rules = "local") {
      const answer = weigh((await run({ ...req, rules }, { name: "check" })) as CheckAnswer);
      if (!answer.ok) throw refusal(answer.engineError);
    },
    async screen(req) {
      const answer = weigh((await run(req, { name: "screen" })) as CheckAnswer);
      if (!answer.ok) throw refusal(answer.engineError);
    },
    close: async () => {
      await Promise.all([current.pool.destroy(), ...[...draining].map((t) => t.pool.destroy()), ...retiring]);
    },
  };
}

/**
 * The parent's Node flags a worker thread can take: module hooks (tsx, loaders), conditions,
 * source maps, warnings. V8 flags (`--max-semi-space-size`, which `npm start` sets) are
 * per process: a Worker given one refuses to start (ERR_WORKER_INVALID_EXEC_ARGV).
 */
export function workerExecArgv(parent: readonly string[]): string[] {
  const withValue = new Set([
    "--import",
    "--require",
    "-r",
    "--loader",
    "--experimental-loader",
    "--conditions",
    "-C",
  ]);
  const alone = /^--(enable-source-maps|no-warnings|no-deprecation|experimental-[a-z-]+)$/;
  const out: string[] = [];
  for (let i = 0; i < parent.length; i++) {
    const arg = parent[i]!;
    const [name] = arg.split("=", 1);
    if (withValue.has(name!)) {
      if (arg.includes("=")) out.push(arg);
      else if (i + 1 < parent.length) out.push(arg, parent[++i]!);
    } else if (alone.test(arg)) out.push(arg);
  }
  return out;
}

const refusal = (e: { reason: string; retryable: boolean; code: string }) =>
  new EngineError(e.reason, e.retryable, e.code);
