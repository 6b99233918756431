/**
 * The limits that guard paid image services: a daily spend cap per provider and a circuit
 * breaker per provider. In one process they live in memory; when several processes render
 * (scale-out) they must be shared, or N workers would spend N caps and each keep sending
 * to a provider the others already found down. The engine's router speaks only to these
 * interfaces; the composition root picks memory or Redis.
 */

/** A held reservation of spend: commit after a delivered image, release after a failure. */
export interface Reservation {
  commit(): Promise<void>;
  release(): Promise<void>;
}

export interface SpendLedger {
  /** Reserves `cost` of today's cap, or answers null when that would pass it. */
  tryReserve(provider: string, cost: number): Promise<Reservation | null>;
  /** Today's committed spend (UTC day). */
  spentToday(provider: string): Promise<number>;
  /**
   * At least `amount` was spent today (start-up: the images already stored). Raises the
   * day's sum to it, never adds: every process of a deployment reads the same images.
   */
  atLeast(provider: string, amount: number): Promise<void>;
}

export type BreakerState = "closed" | "open" | "half-open";

/** One render let through by a breaker; a trial is the one render of a half-open breaker. */
export interface BreakerPass {
  trial: boolean;
}

export interface Breaker {
  /** A pass for one render now, or null while the breaker is open (or its trial is out). */
  tryPass(): Promise<BreakerPass | null>;
  onSuccess(pass: BreakerPass): Promise<void>;
  onFailure(pass: BreakerPass): Promise<void>;
  /** A render that ended without telling anything about the provider (our own deadline). */
  onNeutral(pass: BreakerPass): Promise<void>;
  state(): Promise<BreakerState>;
}

export interface BreakerOptions {
  /** Consecutive failures that open the breaker. */
  threshold: number;
  /** How long it stays open before one trial render. */
  cooldownMs: number;
}

/** Makes the limits of a deployment: one ledger, one breaker per provider id. */
export interface ProviderLimits {
  spend(dailyCap: Record<string, number | undefined>): SpendLedger;
  breaker(provider: string, opts: BreakerOptions): Breaker;
}
