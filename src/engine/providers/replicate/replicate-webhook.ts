import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Replicate's webhook mode: Replicate POSTs the finished prediction to our URL, and the
 * render that created it is waiting for it here. Every delivery is verified as Replicate
 * documents (the Standard Webhooks scheme): `webhook-signature` holds space-separated
 * `v1,<base64 HMAC-SHA256>` entries over `"<webhook-id>.<webhook-timestamp>.<raw body>"`,
 * keyed with the account's signing secret (`whsec_<base64 key>`, from
 * `GET /v1/webhooks/default/secret`), and the timestamp must be within five minutes of our
 * clock. Anything else is refused, so nobody can hand a render a forged result.
 */

/** Why a delivery was refused (logged; the route only answers 401). */
export type ReplicateWebhookRefusal =
  "missing headers" | "stale timestamp" | "bad signature" | "bad secret" | "bad body";

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Accepted distance between the delivery's timestamp and our clock (default 300 s). */
  toleranceSeconds?: number;
  now?: () => number;
}

export type VerifyResult = { ok: true } | { ok: false; reason: ReplicateWebhookRefusal };

/**
 * Verifies one delivery's Standard Webhooks signature against `secret` (`whsec_…`).
 * `rawBody` must be the bytes exactly as received (not re-serialised JSON).
 */
export function verifyReplicateWebhook(
  headers: WebhookHeaders,
  rawBody: Uint8Array | string,
  secret: string,
  opts: VerifyOptions = {},
): VerifyResult {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) return { ok: false, reason: "missing headers" };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "stale timestamp" };
  const now = (opts.now ?? Date.now)() / 1000;
  if (Math.abs(now - Number(timestamp)) > (opts.toleranceSeconds ?? 300)) {
    return { ok: false, reason: "stale timestamp" };
  }
  const key = secretKey(secret);
  if (!key) return { ok: false, reason: "bad secret" };

  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody);
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();
  for (const entry of signatures.split(" ")) {
    const [version, value] = entry.split(",", 2);
    if (version !== "v1" || !value) continue;
    const given = Buffer.from(value, "base64");
    // timingSafeEqual needs equal lengths; a length mismatch is a bad signature anyway.
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: "bad signature" };
}

/** The HMAC key of a `whsec_<base64>` secret (a secret without the prefix is taken as base64 too). */
export function secretKey(secret: string): Buffer | null {
  const b64 = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return null;
  const key = Buffer.from(b64, "base64");
  return key.length > 0 ? key : null;
}

/** The `v1,<base64>` signature of a body (the fake and tests sign with it). */
export function signReplicateWebhook(
  secret: string,
  id: string,
  timestamp: number | string,
  rawBody: string | Uint8Array,
): string {
  const key = secretKey(secret);
  if (!key) throw new Error("invalid webhook secret");
  const sig = createHmac("sha256", key)
    .update(`${id}.${timestamp}.`)
    .update(typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody))
    .digest("base64");
  return `v1,${sig}`;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === lower) return Array.isArray(v) ? v.join(" ") : v;
  }
  return undefined;
}

/** A prediction as Replicate describes it (create, get, and webhook bodies alike). */
export interface ReplicatePrediction {
  id: string;
  status: string;
  output?: unknown;
  error?: unknown;
  model?: string;
  version?: string;
  urls?: { get?: string; cancel?: string; stream?: string; web?: string };
  data_removed?: boolean;
}

export const TERMINAL_STATUSES = ["succeeded", "failed", "canceled", "aborted"] as const;
export const isTerminal = (status: string): boolean =>
  (TERMINAL_STATUSES as readonly string[]).includes(status);

export interface ReplicateWebhookHubOptions extends VerifyOptions {
  /** The account's webhook signing secret (`whsec_…`). */
  secret: string;
}

interface Waiter {
  resolve: (p: ReplicatePrediction) => void;
}

/**
 * Verifies deliveries and routes each finished prediction to the render waiting for it.
 * One hub per process: the provider waits on it, the API route feeds it.
 */
export class ReplicateWebhookHub {
  private readonly waiters = new Map<string, Waiter>();
  /** Deliveries that arrived before their render started waiting (kept briefly). */
  private readonly early = new Map<string, { prediction: ReplicatePrediction; at: number }>();
  private readonly now: () => number;

  constructor(private readonly opts: ReplicateWebhookHubOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Resolves with the finished prediction `id`; rejects when the signal aborts. */
  wait(id: string, signal?: AbortSignal): Promise<ReplicatePrediction> {
    const early = this.early.get(id);
    if (early) {
      this.early.delete(id);
      return Promise.resolve(early.prediction);
    }
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.waiters.delete(id);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.set(id, {
        resolve: (p) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(p);
        },
      });
    });
  }

  /**
   * Verifies one POST and hands it to its waiter. Resolves null when accepted (answer 2xx),
   * or why it was refused (answer 401). Async to match the webhook route's receiver shape.
   */
  async receive(
    rawBody: Uint8Array | string,
    headers: WebhookHeaders,
  ): Promise<ReplicateWebhookRefusal | null> {
    return this.receiveSync(rawBody, headers);
  }

  /** receive(), synchronously. */
  receiveSync(rawBody: Uint8Array | string, headers: WebhookHeaders): ReplicateWebhookRefusal | null {
    const verdict = verifyReplicateWebhook(headers, rawBody, this.opts.secret, {
      ...(this.opts.toleranceSeconds !== undefined ? { toleranceSeconds: this.opts.toleranceSeconds } : {}),
      now: this.now,
    });
    if (!verdict.ok) return verdict.reason;
    let body: unknown;
    try {
      body = JSON.parse(typeof rawBody === "string" ? rawBody : Buffer.from(rawBody).toString("utf8"));
    } catch {
      return "bad body";
    }
    const p = body as Partial<ReplicatePrediction> | null;
    if (!p || typeof p.id !== "string" || typeof p.status !== "string") return "bad body";
    // Only "completed" is subscribed; anything else is accepted and ignored.
    if (isTerminal(p.status)) this.deliver(p as ReplicatePrediction);
    return null;
  }

  private deliver(prediction: ReplicatePrediction): void {
    const waiter = this.waiters.get(prediction.id);
    if (waiter) {
      this.waiters.delete(prediction.id);
      waiter.resolve(prediction);
      return;
    }
    // Replicate can finish before the render starts waiting (sync wait); keep it briefly.
    const now = this.now();
    for (const [id, e] of this.early) if (now - e.at > 600_000) this.early.delete(id);
    if (this.early.size < 10_000) this.early.set(prediction.id, { prediction, at: now });
  }
}
