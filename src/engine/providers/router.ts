import {
  EngineError,
  type Renderer,
  type RenderProgress,
  type RenderRequest,
  type RenderResult,
} from "@/core/ports/renderer";
import type { Breaker, BreakerPass, ProviderLimits, SpendLedger } from "@/core/ports/provider-limits";
import { EFFECT_FINISHES } from "../effects/prompts";
import { markAiGenerated } from "./provenance";
import { ProviderCodes, type ProviderCode } from "./codes";
import { memoryLimits } from "./spend-cap";

/**
 * Chooses the provider for each render and guards the hosted ones. The order of
 * candidates for an effect is its per-effect override (or the deployment's ENGINE),
 * then the fallback list (which ends with "local"). The first candidate that supports
 * the effect, whose circuit breaker lets it pass and whose daily spend cap has room,
 * renders, within a time limit and the task's own deadline.
 *
 * A render that fails is not retried on the next candidate: retries of 429/5xx already
 * happened per HTTP call inside the provider, a refused photo must not be sent elsewhere
 * to get round a safety filter, and a task should cost at most one hosted image. The
 * failure ends the task (with a refund) and counts against the provider's breaker, which
 * moves later tasks to the fallback when the provider keeps failing.
 */

export interface RouterConfig {
  /** The deployment's provider (an id of the provider table). */
  engine: string;
  /** Per-effect provider, by effect id. */
  overrides: Record<string, string>;
  /** Tried in order when the chosen provider is unavailable; ends with "local". */
  fallback: string[];
  /** Longest one render may take at a provider before it is cancelled. */
  renderTimeoutMs: number;
  breaker: { threshold: number; cooldownMs: number };
  /** Cost of one image per provider id and submit route (the routes use different models). */
  costPerImage: Record<string, { v1: number; v2: number }>;
  /** Daily spend cap per provider id, in the same currency; unset: no cap. */
  dailyCap: Record<string, number | undefined>;
  /** The runtime settings' provider for an effect (read per render), over `overrides`. */
  engineFor?: (effectId: string) => string | undefined;
  /**
   * Content safety for what a generative backend returns: rejects (an EngineError, not
   * retryable) when the image must not be delivered; the task fails with a refund.
   */
  screenOutput?: (result: RenderResult) => Promise<void>;
}

export type RouterLog = (
  level: "info" | "warn" | "error",
  msg: string,
  extra?: Record<string, unknown>,
) => void;

/** Why a candidate was passed over (logged, and summarised if none is left). */
type Skip = "unsupported" | "too many images" | "breaker open" | "spend cap reached";

export const RouterReasons = {
  unavailable: "Image generation is temporarily unavailable on this server. Please try again later.",
  timeout: "The image service took too long to answer. Please try again.",
  unexpected: "The image service failed unexpectedly. Please try again.",
} as const;

/** The translated message's code for each of RouterReasons. */
export const RouterCodes: Record<keyof typeof RouterReasons, ProviderCode> = {
  unavailable: ProviderCodes.unavailable,
  timeout: ProviderCodes.timeout,
  unexpected: ProviderCodes.unexpected,
};

/** The router's own failures: all retryable, as they are about the provider, not the photo. */
export const routerError = (why: keyof typeof RouterReasons): EngineError =>
  new EngineError(RouterReasons[why], true, RouterCodes[why]);

export class ProviderRouter implements Renderer {
  readonly id = "router";
  private readonly providers = new Map<string, Renderer>();
  private readonly breakers = new Map<string, Breaker>();
  readonly spend: SpendLedger;

  constructor(
    providers: Renderer[],
    private readonly config: RouterConfig,
    private readonly log: RouterLog = () => undefined,
    /** Where the spend caps and breakers live: this process (default) or shared (Redis). */
    limits: ProviderLimits | (() => number) = memoryLimits(),
  ) {
    const shared = typeof limits === "function" ? memoryLimits(limits) : limits;
    for (const p of providers) {
      this.providers.set(p.id, p);
      // The local engine has no outage to route around and nothing to fall back to.
      if (p.id !== "local") this.breakers.set(p.id, shared.breaker(p.id, config.breaker));
    }
    this.spend = shared.spend(config.dailyCap);
  }

  /** Candidate provider ids for an effect, in order, without repeats or unknown ids. */
  candidates(effectId: string): string[] {
    // The runtime settings' choice, while this server has that provider; else the env's.
    const chosen = this.config.engineFor?.(effectId);
    const first =
      chosen && this.providers.has(chosen) ? chosen : (this.config.overrides[effectId] ?? this.config.engine);
    return [...new Set([first, ...this.config.fallback])].filter((id) => this.providers.has(id));
  }

  /**
   * The provider expected to render the effect while every candidate is up: the first
   * candidate that supports it (breakers and spend caps, which change by the minute, are
   * not consulted). The local engine counts as supporting: a scale-out web process's
   * stand-in renders nothing, yet the worker's local engine would. Submit checks the
   * planned engine's input rules before charging (ADR 008).
   */
  plannedEngine(effectId: string): string {
    return (
      this.candidates(effectId).find((id) => id === "local" || this.providers.get(id)!.supports(effectId)) ??
      "local"
    );
  }

  /**
   * The most input images the planned engine takes for the effect (undefined: no known
   * limit). A request with more is refused before charging; should it fall back, a provider
   * with a lower limit is skipped.
   */
  maxImages(effectId: string): number | undefined {
    return this.providers.get(this.plannedEngine(effectId))?.maxImages?.(effectId);
  }

  /** Whether any candidate for the effect can render it. */
  supports(effectId: string): boolean {
    return this.candidates(effectId).some((id) => this.providers.get(id)!.supports(effectId));
  }

  /** What one image costs at a provider on a route (0 when not configured). */
  cost(id: string, route: RenderRequest["route"]): number {
    return this.config.costPerImage[id]?.[route] ?? 0;
  }

  /** The breaker of a hosted provider (for tests and health output). */
  breaker(id: string): Breaker | undefined {
    return this.breakers.get(id);
  }

  async render(
    request: RenderRequest,
    signal?: AbortSignal,
    onProgress?: (progress: RenderProgress) => void,
  ): Promise<RenderResult> {
    const skipped: Array<{ id: string; why: Skip }> = [];
    for (const id of this.candidates(request.effectId)) {
      const provider = this.providers.get(id)!;
      if (!provider.supports(request.effectId)) {
        skipped.push({ id, why: "unsupported" });
        continue;
      }
      if ((provider.maxImages?.(request.effectId) ?? Infinity) < request.images.length) {
        skipped.push({ id, why: "too many images" });
        continue;
      }
      const breaker = this.breakers.get(id);
      const reservation =
        id === "local" ? null : await this.spend.tryReserve(id, this.cost(id, request.route));
      if (id !== "local" && !reservation) {
        skipped.push({ id, why: "spend cap reached" });
        continue;
      }
      const pass = breaker ? await breaker.tryPass() : null;
      if (breaker && !pass) {
        await reservation?.release();
        skipped.push({ id, why: "breaker open" });
        continue;
      }
      const gate = breaker && pass ? { breaker, pass } : undefined;
      if (skipped.length)
        this.log("info", "provider fallback", { effectId: request.effectId, to: id, skipped });
      try {
        const result = await this.renderWithTimeout(provider, request, signal, onProgress);
        await reservation?.commit();
        await gate?.breaker.onSuccess(gate.pass);
        if (id === "local") return result;
        // The effect's measurable promise (16 colours, a Letter page, a 3 x 3 grid) is kept
        // whatever rendered it, or the task fails with a refund; then the provenance marker.
        const finish = EFFECT_FINISHES[request.effectId];
        const finished = finish ? await finish(result, request) : result;
        await this.config.screenOutput?.(finished);
        return await this.markGenerated(finished);
      } catch (err) {
        await reservation?.release();
        const failure = await this.settleFailure(id, gate, err, signal);
        failure.engineId ??= id;
        throw failure;
      }
    }
    this.log("warn", "no provider available", { effectId: request.effectId, skipped });
    throw routerError("unavailable");
  }

  /** A generative backend's image, marked AI-generated in its metadata (provenance.ts). */
  private async markGenerated(result: RenderResult): Promise<RenderResult> {
    try {
      return await markAiGenerated(result);
    } catch (err) {
      // The providers already checked the image decodes; an odd layout keeps its bytes.
      this.log("warn", "could not mark an output as AI-generated", {
        provider: result.provider,
        err: String(err),
      });
      return result;
    }
  }

  /** Runs one render under the router's time limit and the caller's signal. */
  private async renderWithTimeout(
    provider: Renderer,
    request: RenderRequest,
    signal?: AbortSignal,
    onProgress?: (progress: RenderProgress) => void,
  ): Promise<RenderResult> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(routerError("timeout")), this.config.renderTimeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    try {
      // Race the abort too: a provider that ignores its signal still ends on time.
      return await Promise.race([provider.render(request, combined, onProgress), abortPromise(combined)]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Turns any failure into an EngineError and tells the provider's breaker about it. */
  private async settleFailure(
    id: string,
    gate: { breaker: Breaker; pass: BreakerPass } | undefined,
    err: unknown,
    signal?: AbortSignal,
  ): Promise<EngineError> {
    if (signal?.aborted) {
      // The task's own deadline: the task runner reports it; it says nothing about the
      // provider (the task may have waited in our queue).
      await gate?.breaker.onNeutral(gate.pass);
      return err instanceof EngineError ? err : routerError("timeout");
    }
    if (err instanceof EngineError) {
      // Retryable failures are the provider's (outage, 429/5xx after retries, timeout, a
      // rejected key); the others are about this request (a refused photo).
      if (err.retryable) await gate?.breaker.onFailure(gate.pass);
      else await gate?.breaker.onSuccess(gate.pass);
      this.log(err.retryable ? "warn" : "info", "render failed", { provider: id, reason: err.reason });
      return err;
    }
    await gate?.breaker.onFailure(gate.pass);
    this.log("error", "render crashed", { provider: id, err: String(err) });
    return routerError("unexpected");
  }
}

/** Rejects with the signal's reason when it aborts. */
function abortPromise(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
