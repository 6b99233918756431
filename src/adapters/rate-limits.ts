import type { Redis } from "ioredis";
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from "rate-limiter-flexible";

/**
 * Per-user and per-IP limits on uploads and submits (rate-limiter-flexible): in memory on
 * one machine, in Redis when several processes serve. A refusal is a RateLimitExceeded
 * carrying the seconds to wait; the API answers it with a 429 (src/api/context.ts).
 */
export class RateLimitExceeded extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`rate limit exceeded; retry after ${retryAfterSeconds} s`);
    this.name = "RateLimitExceeded";
  }
}

export class RateLimits {
  private readonly limiters: Record<"upload" | "submit", RateLimiterAbstract | null>;

  /** `namespace` separates deployments sharing one Redis (the queue name is used). */
  constructor(perMinute: { upload: number; submit: number }, redis?: Redis, namespace = "photofx") {
    const make = (name: string, points: number) =>
      points <= 0
        ? null
        : redis
          ? new RateLimiterRedis({
              storeClient: redis,
              keyPrefix: `${namespace}:rl:${name}`,
              points,
              duration: 60,
            })
          : new RateLimiterMemory({ keyPrefix: name, points, duration: 60 });
    this.limiters = { upload: make("upload", perMinute.upload), submit: make("submit", perMinute.submit) };
  }

  /** Counts one request against the user's and the IP's budget; throws RateLimitExceeded past either. */
  async consume(kind: "upload" | "submit", userId: string, ip: string | undefined): Promise<void> {
    const limiter = this.limiters[kind];
    if (!limiter) return;
    try {
      await limiter.consume(`u:${userId}`);
      if (ip) await limiter.consume(`ip:${ip}`);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      throw new RateLimitExceeded(Math.max(1, Math.ceil(err.msBeforeNext / 1000)));
    }
  }
}
