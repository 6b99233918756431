import { createHash, createPublicKey, verify, type JsonWebKey, type KeyObject } from "node:crypto";

/**
 * fal's webhook mode: fal POSTs a finished job's result to our URL, and the render that
 * submitted the job is waiting for it here. Every delivery is verified as fal documents:
 * an ED25519 signature, by one of the keys fal publishes as a JWKS, over
 * `request id \n user id \n timestamp \n sha256(body)`, with the timestamp within five
 * minutes. Anything else is refused, so nobody can hand a render a forged result.
 */

export const FAL_JWKS_URL = "https://rest.alpha.fal.ai/.well-known/jwks.json";

/** What a verified delivery tells the waiting render. */
export interface FalWebhookDelivery {
  requestId: string;
  /** "OK" or "ERROR". */
  status: string;
  payload: unknown;
  error?: string;
}

/** Why a delivery was refused (logged; the caller only answers 401). */
export type WebhookRefusal = "missing headers" | "stale timestamp" | "bad signature" | "bad body" | "no keys";

export interface FalWebhookHubOptions {
  jwksUrl?: string;
  /** How long fetched keys are trusted before they are fetched again. */
  keysTtlMs?: number;
  /** Accepted distance between the delivery's timestamp and our clock. */
  toleranceSeconds?: number;
  fetch?: typeof fetch;
  now?: () => number;
}

interface Waiter {
  resolve: (d: FalWebhookDelivery) => void;
  reject: (err: unknown) => void;
}

/** Verifies deliveries and routes each to the render waiting for its request id. */
export class FalWebhookHub {
  private readonly waiters = new Map<string, Waiter>();
  /** Deliveries that arrived before their render started waiting (kept briefly). */
  private readonly early = new Map<string, { delivery: FalWebhookDelivery; at: number }>();
  private keys: { list: KeyObject[]; at: number } | null = null;
  private readonly now: () => number;

  constructor(private readonly opts: FalWebhookHubOptions = {}) {
    this.now = opts.now ?? Date.now;
  }

  /** Resolves with the delivery for requestId; rejects when the signal aborts. */
  wait(requestId: string, signal?: AbortSignal): Promise<FalWebhookDelivery> {
    const early = this.early.get(requestId);
    if (early) {
      this.early.delete(requestId);
      return Promise.resolve(early.delivery);
    }
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.waiters.delete(requestId);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.set(requestId, {
        resolve: (d) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(d);
        },
        reject,
      });
    });
  }

  /**
   * Verifies one POST and hands it to its waiter. Returns null when accepted, or why it
   * was refused.
   */
  async receive(rawBody: Uint8Array, headers: Headers): Promise<WebhookRefusal | null> {
    const requestId = headers.get("x-fal-webhook-request-id");
    const userId = headers.get("x-fal-webhook-user-id");
    const timestamp = headers.get("x-fal-webhook-timestamp");
    const signature = headers.get("x-fal-webhook-signature");
    if (!requestId || !userId || !timestamp || !signature) return "missing headers";
    if (!/^\d{1,12}$/.test(timestamp)) return "stale timestamp";
    const skew = Math.abs(this.now() / 1000 - Number(timestamp));
    if (skew > (this.opts.toleranceSeconds ?? 300)) return "stale timestamp";
    if (!/^[0-9a-f]{128}$/i.test(signature)) return "bad signature";

    const digest = createHash("sha256").update(rawBody).digest("hex");
    const message = Buffer.from(`${requestId}\n${userId}\n${timestamp}\n${digest}`);
    const sig = Buffer.from(signature, "hex");
    let keys = await this.publicKeys();
    if (!keys.length) return "no keys";
    let ok = keys.some((k) => verify(null, message, k, sig));
    if (!ok && this.keys && this.now() - this.keys.at > 60_000) {
      // fal may have rotated its keys since we fetched them: fetch once more.
      this.keys = null;
      keys = await this.publicKeys();
      ok = keys.some((k) => verify(null, message, k, sig));
    }
    if (!ok) return "bad signature";

    let body: { request_id?: unknown; status?: unknown; payload?: unknown; error?: unknown };
    try {
      body = JSON.parse(Buffer.from(rawBody).toString("utf8")) as typeof body;
    } catch {
      return "bad body";
    }
    // The signed header names the request; the body must be about the same one.
    if (body.request_id !== requestId || typeof body.status !== "string") return "bad body";
    this.deliver({
      requestId,
      status: body.status,
      payload: body.payload,
      ...(typeof body.error === "string" ? { error: body.error } : {}),
    });
    return null;
  }

  private deliver(delivery: FalWebhookDelivery): void {
    const waiter = this.waiters.get(delivery.requestId);
    if (waiter) {
      this.waiters.delete(delivery.requestId);
      waiter.resolve(delivery);
      return;
    }
    // fal can answer before the render starts waiting; keep it a few minutes.
    const now = this.now();
    for (const [id, e] of this.early) if (now - e.at > 600_000) this.early.delete(id);
    if (this.early.size < 10_000) this.early.set(delivery.requestId, { delivery, at: now });
  }

  /** fal's public keys, fetched from the JWKS URL and cached. */
  private async publicKeys(): Promise<KeyObject[]> {
    const ttl = this.opts.keysTtlMs ?? 24 * 3600_000;
    if (this.keys && this.now() - this.keys.at < ttl) return this.keys.list;
    const doFetch = this.opts.fetch ?? fetch;
    try {
      const res = await doFetch(this.opts.jwksUrl ?? FAL_JWKS_URL, { signal: AbortSignal.timeout(10_000) });
      const jwks = (await res.json()) as { keys?: JsonWebKey[] };
      const list = (jwks.keys ?? [])
        .filter((k) => k.kty === "OKP" && k.crv === "Ed25519" && typeof k.x === "string")
        .map((k) => createPublicKey({ key: k, format: "jwk" }));
      this.keys = { list, at: this.now() };
      return list;
    } catch {
      return this.keys?.list ?? [];
    }
  }
}
