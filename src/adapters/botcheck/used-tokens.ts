import { createHash } from "node:crypto";
import { lt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { usedBotcheckToken } from "../db/schema";

/**
 * Spent bot-check tokens, in the database so a replay is refused by every process that
 * shares it. `spend` is atomic: of two concurrent uses, exactly one wins.
 */
export class UsedTokenStore {
  constructor(private readonly db: Db) {}

  /** Marks the token used; false if it already was. */
  async spend(token: string, expiresAt: Date): Promise<boolean> {
    const id = createHash("sha256").update(token).digest("base64url");
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
