import type { Redis } from "ioredis";
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from "rate-limiter-flexible";
import { AppError } from "@/core/errors";

/**
 * Per-user and per-IP limits on uploads and submits (rate-limiter-flexible): in memory on
 * one machine, in Redis when several processes serve. A refusal is a 429 with a clear
 * message and the seconds to wait.
 */
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

  /** Counts one request against the user's and the IP's budget; throws RATE_LIMITED past either. */
  async consume(kind: "upload" | "submit", userId: string, ip: string | undefined): Promise<void> {
    const limiter = this.limiters[kind];
    if (!limiter) return;
    try {
      await limiter.consume(`u:${userId}`);
      if (ip) await limiter.consume(`ip:${ip}`);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const seconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      throw new AppError(
        "RATE_LIMITED",
        `Too many requests. Please wait ${seconds} seconds and try again.`,
        { retryAfter: seconds },
        { key: "rateLimited", values: { seconds } },
      );
    }
  }
}
