import { createHash } from "node:crypto";
import { lt, sql } from "drizzle-orm";
import type { Redis } from "ioredis";
import type { Db } from "@/core/db";
import { usedBotcheckToken } from "@/core/schema";

/**
 * Spent bot-check tokens, so a replay is refused by every process. `spend` is atomic: of
 * two concurrent uses of one token, exactly one wins.
 */
export interface UsedTokenStore {
  /** Marks the token used until `expiresAt`; false if it already was. */
  spend(token: string, expiresAt: Date): Promise<boolean>;
  /** Forgets tokens that have expired anyway (a no-op where the store expires them itself). */
  sweep(now?: Date): Promise<number>;
}

const tokenId = (token: string) => createHash("sha256").update(token).digest("base64url");

/** In Redis (scale-out): SET NX with the token's remaining lifetime, so Redis expires it. */
export class RedisUsedTokenStore implements UsedTokenStore {
  constructor(private readonly redis: Redis) {}

  async spend(token: string, expiresAt: Date): Promise<boolean> {
    const ttl = Math.max(1, Math.ceil((expiresAt.getTime() - Date.now()) / 1000));
    return (await this.redis.set(`photofx:botcheck:${tokenId(token)}`, "1", "EX", ttl, "NX")) === "OK";
  }

  async sweep(): Promise<number> {
    return 0;
  }
}

/** In the database (one machine, or wherever Redis is not configured). */
export class DbUsedTokenStore implements UsedTokenStore {
  constructor(private readonly db: Db) {}

  /** Marks the token used; false if it already was. */
  async spend(token: string, expiresAt: Date): Promise<boolean> {
    const id = tokenId(token);
    const rows = await this.db
      .insert(usedBotcheckToken)
      .values({ id, expiresAt })
      .onConflictDoNothing()
      .returning({ id: usedBotcheckToken.id });
    return rows.length === 1;
  }

  /** Forgets tokens that have expired anyway. */
  async sweep(now = new Date()): Promise<number> {
    const rows = await this.db
      .delete(usedBotcheckToken)
      .where(lt(usedBotcheckToken.expiresAt, sql`${now.toISOString()}::timestamptz`))
      .returning({ id: usedBotcheckToken.id });
    return rows.length;
  }
}
