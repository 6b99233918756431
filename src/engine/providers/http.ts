import { EngineError } from "@/core/ports/renderer";
import { ProviderCodes, type ProviderCode } from "./codes";

/**
 * HTTP plumbing shared by the hosted providers: one retry layer for 429 and 5xx answers
 * (honouring Retry-After), per-attempt timeouts, and the typed error the router reads.
 *
 * Retries happen here, per HTTP call, rather than around a whole render: re-running a
 * render after, say, a failed status poll would submit a second paid job while the first
 * may still finish. Both SDKs get this as their `fetch`, with their own retries turned
 * off, so there is exactly one retry policy and it is ours.
 */

/** How one HTTP call is retried. */
export interface RetryPolicy {
  /** Attempts in total, the first one included (1 = no retry). */
  attempts: number;
  /** Delay before the first retry; doubles on each further one. */
  baseDelayMs: number;
  /** Longest wait between two attempts, Retry-After included. */
  maxDelayMs: number;
  /** Abort one attempt that takes longer than this (0 = no per-attempt limit). */
  attemptTimeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  attemptTimeoutMs: 60_000,
};

/**
 * A provider answered 429 or 5xx (or could not be reached) on every attempt. Retryable,
 * so the router counts it against the provider's circuit breaker.
 */
export class ProviderHttpError extends EngineError {
  constructor(
    readonly provider: string,
    /** HTTP status, or 0 when no answer came at all. */
    readonly status: number,
    reason: string,
    /** Code of the translated message; every 429/5xx/unreachable reason reads as "busy". */
    code: ProviderCode = ProviderCodes.busy,
  ) {
    super(reason, true, code);
    this.name = "ProviderHttpError";
  }
}

/** The user-facing text for a provider that kept failing. */
export function unavailableReason(status: number): string {
  if (status === 429) return "The image service is busy right now. Please try again in a few minutes.";
  if (status === 0) return "The image service could not be reached. Please try again in a few minutes.";
  return "The image service is having problems right now. Please try again in a few minutes.";
}

/**
 * The failures every hosted provider maps its answers to, with one wording each:
 * - unavailable: our key or the model is refused (401/403/404), the operator's problem;
 *   retryable, so the circuit breaker routes effects to the fallback;
 * - struggling: a 429/5xx the retry layer handed back;
 * - unreadable photo: the provider could not use this photo (not retried).
 */
export const providerUnavailable = (): EngineError =>
  new EngineError(
    "The image service is not available on this server right now.",
    true,
    ProviderCodes.unavailable,
  );

export const providerStruggling = (provider: string, status: number): ProviderHttpError =>
  new ProviderHttpError(provider, status, unavailableReason(500));

export const unreadablePhoto = (): EngineError =>
  new EngineError(
    "The image service could not process this photo. Please try a different photo.",
    false,
    ProviderCodes.unreadablePhoto,
  );

/** Statuses worth another attempt. */
export const isRetryableStatus = (status: number): boolean =>
  status === 429 || (status >= 500 && status <= 599);

/** Retry-After in milliseconds (delta-seconds or an HTTP date); undefined if absent or invalid. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before retry number `retry` (0-based): the server's Retry-After if it gave
 * one, otherwise exponential backoff with jitter, capped by maxDelayMs.
 */
export function retryDelay(
  retry: number,
  policy: RetryPolicy,
  retryAfterMs?: number,
  random = Math.random,
): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  // Half fixed, half random: tasks that failed together do not all retry together.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Resolves after ms, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export interface ProviderFetchOptions {
  provider: string;
  policy: RetryPolicy;
  /** Rewrites each URL before it is fetched (tests point the provider's hosts at a fake). */
  rewrite?: (url: string) => string;
  /** Called before each retry (logging). */
  onRetry?: (info: { url: string; status: number; delayMs: number; attempt: number }) => void;
  /** The fetch underneath (default: global fetch). */
  fetch?: typeof fetch;
}

/**
 * A fetch that retries 429, 5xx and network failures per `policy`, and throws
 * ProviderHttpError once attempts run out. Other answers (2xx, 4xx) go back to the
 * caller untouched, for the SDK to read. An abort of the caller's signal ends it at once.
 */
export function createProviderFetch(opts: ProviderFetchOptions): typeof fetch {
  const baseFetch = opts.fetch ?? fetch;
  return async (input, init) => {
    const url = opts.rewrite ? opts.rewrite(requestUrl(input)) : requestUrl(input);
    const callerSignal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    // A streamed body cannot be sent twice; strings, buffers and Blobs can.
    const canRetry = !(init?.body instanceof ReadableStream);
    const attempts = canRetry ? Math.max(1, opts.policy.attempts) : 1;
    let lastStatus = 0;
    for (let attempt = 1; ; attempt++) {
      callerSignal?.throwIfAborted();
      const signals = [
        callerSignal,
        opts.policy.attemptTimeoutMs ? AbortSignal.timeout(opts.policy.attemptTimeoutMs) : null,
      ];
      const signal = AbortSignal.any(signals.filter((s): s is AbortSignal => Boolean(s)));
      let retryAfterMs: number | undefined;
      try {
        const target = input instanceof Request ? new Request(url, input) : url;
        const res = await baseFetch(target, { ...init, signal });
        if (!isRetryableStatus(res.status)) return res;
        lastStatus = res.status;
        retryAfterMs = parseRetryAfter(res.headers.get("retry-after"));
        // Free the connection before waiting.
        await res.body?.cancel().catch(() => undefined);
      } catch {
        // The caller gave up (task deadline, cancellation): stop now, with its reason.
        if (callerSignal?.aborted) throw callerSignal.reason;
        // Anything else (refused, reset, per-attempt timeout) is a transport failure.
        lastStatus = 0;
      }
      // Past our longest wait, the server asked us to stay away longer than a retry is
      // worth: give up now rather than call back earlier than it asked.
      const tooLong = retryAfterMs !== undefined && retryAfterMs > opts.policy.maxDelayMs;
      if (attempt >= attempts || tooLong) {
        throw new ProviderHttpError(opts.provider, lastStatus, unavailableReason(lastStatus));
      }
      const delayMs = retryDelay(attempt - 1, opts.policy, retryAfterMs);
      opts.onRetry?.({ url, status: lastStatus, delayMs, attempt });
      await sleep(delayMs, callerSignal);
    }
  };
}

function requestUrl(input: string | URL | Request): string {
  if (typeof input === "string") return input;
  if (input instanceof URL) return input.toString();
  return input.url;
}

/**
 * A rewrite that sends requests for the given hosts to `base` instead, keeping path and
 * query (FAL_BASE_URL in tests: every fal host served by one local fake).
 */
export function rewriteHosts(hosts: readonly string[], base: string): (url: string) => string {
  const target = new URL(base);
  return (raw) => {
    const url = new URL(raw);
    if (!hosts.includes(url.hostname)) return raw;
    url.protocol = target.protocol;
    url.host = target.host;
    return url.toString();
  };
}
