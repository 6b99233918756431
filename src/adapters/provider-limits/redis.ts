import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type {
  Breaker,
  BreakerOptions,
  BreakerPass,
  BreakerState,
  ProviderLimits,
  Reservation,
  SpendLedger,
} from "@/core/ports/provider-limits";

/**
 * Spend caps and circuit breakers shared by every process of a deployment through Redis,
 * with the same rules as the in-process ones (src/engine/providers/spend-cap.ts and
 * circuit-breaker.ts). Each decision is one Lua script, so two workers cannot both take
 * the last room under a cap or both run a half-open breaker's trial.
 *
 * Keys (under `prefix`): `spend:<day>:<provider>` (committed spend), `spend:<day>:<provider>:res`
 * (reservation id -> cost) and `:exp` (reservation id -> expiry), all kept two days;
 * `breaker:<provider>` (failures, openedAt) and `breaker:<provider>:trial` (the trial's lock).
 * A reservation of a process that died mid-render expires after `reservationTtlMs`, so a
 * crash does not hold the cap for the rest of the day; a trial lock after one cool-down.
 */

const DAY_SECONDS = 2 * 24 * 3600;
const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

const RESERVE = `
local now = tonumber(ARGV[4])
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, id in ipairs(expired) do redis.call('HDEL', KEYS[2], id) end
if #expired > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now) end
local cap = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
if cap >= 0 then
  local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
  local pending = 0
  for _, v in ipairs(redis.call('HVALS', KEYS[2])) do pending = pending + tonumber(v) end
  if spent + pending + cost > cap + 1e-9 then return 0 end
end
redis.call('HSET', KEYS[2], ARGV[3], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[6])
redis.call('EXPIRE', KEYS[3], ARGV[6])
return 1`;

// Commit (ARGV[3] = 1) or release: the reservation goes; a commit adds its cost.
const SETTLE = `
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if ARGV[3] == '1' then
  redis.call('INCRBYFLOAT', KEYS[1], ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
end
return 1`;

const AT_LEAST = `
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > spent then redis.call('SET', KEYS[1], ARGV[1]) end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1`;

// 0: refused, 1: a normal pass, 2: the half-open breaker's trial.
const TRY_PASS = `
local opened = redis.call('HGET', KEYS[1], 'openedAt')
if not opened then return 1 end
if tonumber(ARGV[1]) - tonumber(opened) < tonumber(ARGV[2]) then return 0 end
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) then return 2 end
return 0`;

const FAILURE = `
local f = redis.call('HINCRBY', KEYS[1], 'failures', 1)
if ARGV[3] == '1' or f >= tonumber(ARGV[2]) then redis.call('HSET', KEYS[1], 'openedAt', ARGV[1]) end
if ARGV[3] == '1' then redis.call('DEL', KEYS[2]) end
redis.call('EXPIRE', KEYS[1], ARGV[4])
return f`;

export interface RedisLimitsOptions {
  /** Key prefix, e.g. the queue name, so deployments sharing a Redis do not mix. */
  prefix: string;
  /** How long a reservation is held if its process never settles it (> the render time limit). */
  reservationTtlMs: number;
  now?: () => number;
}

export function redisLimits(redis: Redis, opts: RedisLimitsOptions): ProviderLimits {
  const now = opts.now ?? Date.now;
  const key = (...parts: string[]) => [opts.prefix, "limits", ...parts].join(":");

  const spend = (dailyCap: Record<string, number | undefined>): SpendLedger => {
    const keys = (provider: string, day: string) => {
      const base = key("spend", day, provider);
      return [base, `${base}:res`, `${base}:exp`];
    };
    return {
      async tryReserve(provider, cost): Promise<Reservation | null> {
        const t = now();
        const day = utcDay(t);
        const id = randomUUID();
        const cap = dailyCap[provider];
        const ok = await redis.eval(
          RESERVE,
          3,
          ...keys(provider, day),
          String(cap ?? -1),
          String(cost),
          id,
          String(t),
          String(t + opts.reservationTtlMs),
          String(DAY_SECONDS),
        );
        if (Number(ok) !== 1) return null;
        let settled = false;
        const settle = async (commit: boolean) => {
          if (settled) return;
          settled = true;
          await redis.eval(
            SETTLE,
            3,
            ...keys(provider, day),
            id,
            String(cost),
            commit ? "1" : "0",
            String(DAY_SECONDS),
          );
        };
        return { commit: () => settle(true), release: () => settle(false) };
      },
      async spentToday(provider) {
        return Number((await redis.get(keys(provider, utcDay(now()))[0]!)) ?? 0);
      },
      async atLeast(provider, amount) {
        await redis.eval(AT_LEAST, 1, keys(provider, utcDay(now()))[0]!, String(amount), String(DAY_SECONDS));
      },
    };
  };

  const breaker = (provider: string, o: BreakerOptions): Breaker => {
    const hash = key("breaker", provider);
    const trial = `${hash}:trial`;
    const ttl = String(Math.max(DAY_SECONDS, Math.ceil((o.cooldownMs * 4) / 1000)));
    return {
      async tryPass(): Promise<BreakerPass | null> {
        const r = Number(await redis.eval(TRY_PASS, 2, hash, trial, String(now()), String(o.cooldownMs)));
        return r === 0 ? null : { trial: r === 2 };
      },
      async onSuccess() {
        await redis.del(hash, trial);
      },
      async onFailure(pass) {
        await redis.eval(
          FAILURE,
          2,
          hash,
          trial,
          String(now()),
          String(o.threshold),
          pass.trial ? "1" : "0",
          ttl,
        );
      },
      async onNeutral(pass) {
        if (pass.trial) await redis.del(trial);
      },
      async state(): Promise<BreakerState> {
        const opened = await redis.hget(hash, "openedAt");
        if (opened === null) return "closed";
        return now() - Number(opened) >= o.cooldownMs ? "half-open" : "open";
      },
    };
  };

  return { spend, breaker };
}
