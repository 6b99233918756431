import type { ProviderLimits, Reservation, SpendLedger } from "@/core/ports/provider-limits";
import { CircuitBreaker } from "./circuit-breaker";

/**
 * A daily spend cap per provider, in this process: the cost of the images rendered today
 * (UTC), each at its configured cost per image. A render reserves its cost before it starts,
 * so concurrent renders cannot pass the cap together; a failed render gives its reservation
 * back (hosted providers bill the images they deliver). Past the cap the router uses the
 * fallback. Seeded at start-up from the images stored today, so a restart does not reset it.
 * With REDIS_URL the Redis ledger (src/adapters/provider-limits) is shared by every process.
 */

const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Rounding slack, so that three 0.1 images fit a 0.3 cap. */
export const SPEND_EPSILON = 1e-9;

export class SpendCap implements SpendLedger {
  private day: string;
  private readonly spent = new Map<string, number>();
  private readonly reserved = new Map<string, number>();

  constructor(
    /** Daily cap per provider id; a provider without one has no cap. */
    private readonly dailyCap: Record<string, number | undefined>,
    private readonly now: () => number = Date.now,
  ) {
    this.day = utcDay(this.now());
  }

  async atLeast(provider: string, amount: number): Promise<void> {
    this.rollOver();
    this.spent.set(provider, Math.max(this.spent.get(provider) ?? 0, amount));
  }

  async spentToday(provider: string): Promise<number> {
    this.rollOver();
    return this.spent.get(provider) ?? 0;
  }

  async tryReserve(provider: string, cost: number): Promise<Reservation | null> {
    this.rollOver();
    const cap = this.dailyCap[provider];
    const committed = this.spent.get(provider) ?? 0;
    const pending = this.reserved.get(provider) ?? 0;
    if (cap !== undefined && committed + pending + cost > cap + SPEND_EPSILON) return null;
    this.add(this.reserved, provider, cost);
    const day = this.day;
    let settled = false;
    const settle = async (commit: boolean) => {
      if (settled) return;
      settled = true;
      this.rollOver();
      // A reservation from yesterday was cleared at midnight; only today's are undone.
      if (this.day === day) this.add(this.reserved, provider, -cost);
      if (commit) this.add(this.spent, provider, cost);
    };
    return { commit: () => settle(true), release: () => settle(false) };
  }

  private add(map: Map<string, number>, provider: string, amount: number): void {
    map.set(provider, Math.max(0, (map.get(provider) ?? 0) + amount));
  }

  /** A new UTC day starts from zero. */
  private rollOver(): void {
    const today = utcDay(this.now());
    if (today === this.day) return;
    this.day = today;
    this.spent.clear();
    this.reserved.clear();
  }
}

/** The limits of a single process (no REDIS_URL). */
export function memoryLimits(now: () => number = Date.now): ProviderLimits {
  return {
    spend: (dailyCap) => new SpendCap(dailyCap, now),
    breaker: (_provider, opts) => new CircuitBreaker(opts, now),
  };
}
