import { createHmac } from "node:crypto";
import { createChallenge, randomInt, verifySolution, type Challenge, type Solution } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import type { BotCheck } from "@/core/ports/botcheck";
import type { UsedTokenStore } from "./used-tokens";

export interface AltchaOptions {
  secret: string;
  /** PBKDF2 iterations per attempt. */
  cost: number;
  /** The secret counter is drawn from [maxCounter/2, maxCounter]: the work the browser does. */
  maxCounter: number;
  ttlSeconds: number;
  used: UsedTokenStore;
}

const ALGORITHM = "PBKDF2/SHA-256";

/**
 * Self-hosted ALTCHA proof of work (altcha-lib v2). Challenges are HMAC-signed and carry
 * their expiry; a solved payload is accepted once (its nonce is spent in UsedTokenStore).
 */
export class AltchaBotCheck implements BotCheck {
  readonly kind = "altcha" as const;
  private readonly hmacSecret: string;
  private readonly hmacKeySecret: string;

  constructor(private readonly opts: AltchaOptions) {
    // Separate keys derived from the app secret: a leak of one use does not forge another.
    this.hmacSecret = createHmac("sha256", opts.secret).update("altcha-challenge").digest("hex");
    this.hmacKeySecret = createHmac("sha256", opts.secret).update("altcha-key").digest("hex");
  }

  /** A fresh challenge for the widget (GET /api/botcheck/challenge). */
  createChallenge(now = Date.now()): Promise<Challenge> {
    const max = this.opts.maxCounter;
    return createChallenge({
      algorithm: ALGORITHM,
      cost: this.opts.cost,
      counter: randomInt(max, Math.floor(max / 2)),
      deriveKey,
      expiresAt: Math.floor(now / 1000) + this.opts.ttlSeconds,
      hmacSignatureSecret: this.hmacSecret,
      hmacKeySignatureSecret: this.hmacKeySecret,
    });
  }

  async verify(token: string): Promise<boolean> {
    let payload: { challenge?: Challenge; solution?: Solution };
    try {
      payload = JSON.parse(Buffer.from(token, "base64").toString("utf8"));
    } catch {
      return false;
    }
    if (!payload?.challenge?.parameters || !payload.solution) return false;
    let result;
    try {
      result = await verifySolution({
        challenge: payload.challenge,
        solution: payload.solution,
        deriveKey,
        hmacSignatureSecret: this.hmacSecret,
        hmacKeySignatureSecret: this.hmacKeySecret,
      });
    } catch {
      return false;
    }
    if (!result.verified || result.expired) return false;
    const expiresAt = new Date((payload.challenge.parameters.expiresAt ?? 0) * 1000);
    return this.opts.used.spend(`altcha:${payload.challenge.parameters.nonce}`, expiresAt);
  }
}
