/**
 * A circuit breaker for one provider. After `threshold` consecutive failures it opens:
 * the router skips the provider (and uses the fallback) for `cooldownMs`. Then one trial
 * render is let through (half-open); its success closes the breaker, its failure opens
 * it for another cool-down. Only the provider's own failures count (outages, 429/5xx
 * after retries, timeouts, a rejected key), never a user's photo being refused.
 */

export type BreakerState = "closed" | "open" | "half-open";

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the breaker. */
  threshold: number;
  /** How long it stays open before one trial render. */
  cooldownMs: number;
  now?: () => number;
}

export class CircuitBreaker {
  private failures = 0;
  private openedAt: number | null = null;
  private trialInFlight = false;
  private readonly now: () => number;

  constructor(private readonly opts: CircuitBreakerOptions) {
    this.now = opts.now ?? Date.now;
  }

  get state(): BreakerState {
    if (this.openedAt === null) return "closed";
    return this.now() - this.openedAt >= this.opts.cooldownMs ? "half-open" : "open";
  }

  /**
   * Whether a render may go to the provider now. In half-open state only one caller gets
   * true (the trial) until it reports back.
   */
  tryPass(): boolean {
    const state = this.state;
    if (state === "closed") return true;
    if (state === "open" || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  onSuccess(): void {
    this.failures = 0;
    this.openedAt = null;
    this.trialInFlight = false;
  }

  onFailure(): void {
    this.failures++;
    if (this.trialInFlight || this.failures >= this.opts.threshold) this.openedAt = this.now();
    this.trialInFlight = false;
  }

  /** A render that ended without telling us anything about the provider (e.g. our own deadline). */
  onNeutral(): void {
    this.trialInFlight = false;
  }
}
