import type { Breaker, BreakerOptions, BreakerPass, BreakerState } from "@/core/ports/provider-limits";

/**
 * A circuit breaker for one provider, in this process. After `threshold` consecutive
 * failures it opens: the router skips the provider (and uses the fallback) for `cooldownMs`.
 * Then one trial render is let through (half-open); its success closes the breaker, its
 * failure opens it for another cool-down. Only the provider's own failures count (outages,
 * 429/5xx after retries, timeouts, a rejected key), never a user's photo being refused.
 * The Redis one (src/adapters/provider-limits) shares the same rules across processes.
 */
export class CircuitBreaker implements Breaker {
  private failures = 0;
  private openedAt: number | null = null;
  private trialInFlight = false;

  constructor(
    private readonly opts: BreakerOptions,
    private readonly now: () => number = Date.now,
  ) {}

  private current(): BreakerState {
    if (this.openedAt === null) return "closed";
    return this.now() - this.openedAt >= this.opts.cooldownMs ? "half-open" : "open";
  }

  async state(): Promise<BreakerState> {
    return this.current();
  }

  async tryPass(): Promise<BreakerPass | null> {
    const state = this.current();
    if (state === "closed") return { trial: false };
    if (state === "open" || this.trialInFlight) return null;
    this.trialInFlight = true;
    return { trial: true };
  }

  async onSuccess(): Promise<void> {
    this.failures = 0;
    this.openedAt = null;
    this.trialInFlight = false;
  }

  async onFailure(pass: BreakerPass): Promise<void> {
    this.failures++;
    if (pass.trial || this.failures >= this.opts.threshold) this.openedAt = this.now();
    if (pass.trial) this.trialInFlight = false;
  }

  async onNeutral(pass: BreakerPass): Promise<void> {
    if (pass.trial) this.trialInFlight = false;
  }
}
