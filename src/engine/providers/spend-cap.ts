/**
 * A daily spend cap per provider: the cost of the images rendered today (UTC), each at
 * its configured cost per image. A render reserves its cost before it starts, so
 * concurrent renders cannot pass the cap together; a failed render gives its reservation
 * back (hosted providers bill the images they deliver). Past the cap the router uses the
 * fallback.
 *
 * The sums live in memory, seeded at start-up from the images stored today, so a restart
 * does not reset them; several API processes each keep their own, so set the cap per
 * process.
 */

/** A held reservation: commit after a success, release after a failure. */
export interface Reservation {
  commit(): void;
  release(): void;
}

const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Rounding slack, so that three 0.1 images fit a 0.3 cap. */
const EPSILON = 1e-9;

export class SpendCap {
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

  /** Adds spend that happened earlier today (start-up: images already stored). */
  seed(provider: string, amount: number): void {
    this.rollOver();
    this.add(this.spent, provider, amount);
  }

  /** Today's committed spend. */
  spentToday(provider: string): number {
    this.rollOver();
    return this.spent.get(provider) ?? 0;
  }

  /** Reserves `cost`, or returns null if that would pass the provider's cap. */
  tryReserve(provider: string, cost: number): Reservation | null {
    this.rollOver();
    const cap = this.dailyCap[provider];
    const committed = this.spent.get(provider) ?? 0;
    const pending = this.reserved.get(provider) ?? 0;
    if (cap !== undefined && committed + pending + cost > cap + EPSILON) return null;
    this.add(this.reserved, provider, cost);
    const day = this.day;
    let settled = false;
    const settle = (commit: boolean) => {
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
