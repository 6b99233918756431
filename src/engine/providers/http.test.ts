import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import {
  createProviderFetch,
  parseRetryAfter,
  ProviderHttpError,
  retryDelay,
  rewriteHosts,
  type RetryPolicy,
} from "./http";

const policy: RetryPolicy = { attempts: 3, baseDelayMs: 10, maxDelayMs: 2_000, attemptTimeoutMs: 0 };

/** A fetch that answers from a script and records the calls. */
function scripted(answers: Array<() => Response | Promise<Response>>) {
  const calls: Array<{ url: string; at: number }> = [];
  const fn = (async (input: string | URL | Request) => {
    calls.push({ url: String(input), at: Date.now() });
    const next = answers.shift();
    if (!next) throw new Error("no more answers");
    return next();
  }) as typeof fetch;
  return { fn, calls };
}

describe("provider fetch", () => {
  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(parseRetryAfter("3")).toBe(3000);
    expect(parseRetryAfter("0.5")).toBe(500);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it("backs off exponentially with jitter, within the cap", () => {
    const p = { ...policy, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(retryDelay(0, p, undefined, () => 0)).toBe(50);
    expect(retryDelay(0, p, undefined, () => 1)).toBe(100);
    expect(retryDelay(2, p, undefined, () => 1)).toBe(400);
    expect(retryDelay(10, p, undefined, () => 1)).toBe(1000);
    expect(retryDelay(0, p, 700)).toBe(700);
  });

  it("retries 429 and 5xx, honouring Retry-After, and returns the success", async () => {
    const s = scripted([
      () => new Response("busy", { status: 429, headers: { "retry-after": "0.3" } }),
      () => new Response("oops", { status: 502 }),
      () => new Response("ok", { status: 200 }),
    ]);
    const res = await createProviderFetch({ provider: "x", policy, fetch: s.fn })("https://api.test/a");
    expect(await res.text()).toBe("ok");
    expect(s.calls).toHaveLength(3);
    expect(s.calls[1]!.at - s.calls[0]!.at).toBeGreaterThanOrEqual(290);
  });

  it("hands other statuses back untouched, for the SDK to read", async () => {
    const s = scripted([() => new Response("{}", { status: 422 })]);
    const res = await createProviderFetch({ provider: "x", policy, fetch: s.fn })("https://api.test/a");
    expect(res.status).toBe(422);
    expect(s.calls).toHaveLength(1);
  });

  it("throws a retryable ProviderHttpError once the attempts run out", async () => {
    const s = scripted([503, 503, 500].map((status) => () => new Response("", { status })));
    const err = await createProviderFetch({ provider: "x", policy, fetch: s.fn })("https://api.test/a").catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(ProviderHttpError);
    expect(err).toBeInstanceOf(EngineError);
    expect(err).toMatchObject({ status: 500, retryable: true });
    expect(s.calls).toHaveLength(3);
  });

  it("gives up at once when Retry-After asks for longer than our longest wait", async () => {
    const s = scripted([() => new Response("", { status: 429, headers: { "retry-after": "3600" } })]);
    const err = await createProviderFetch({ provider: "x", policy, fetch: s.fn })("https://api.test/a").catch(
      (e) => e,
    );
    expect(err).toMatchObject({ status: 429, reason: expect.stringContaining("busy") });
    expect(s.calls).toHaveLength(1);
  });

  it("retries network failures, and stops waiting when the caller aborts", async () => {
    const s = scripted([
      () => Promise.reject(new TypeError("fetch failed")),
      () => new Response("", { status: 503, headers: { "retry-after": "1" } }),
    ]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("deadline")), 100);
    const started = Date.now();
    const err = await createProviderFetch({ provider: "x", policy, fetch: s.fn })("https://api.test/a", {
      signal: controller.signal,
    }).catch((e) => e);
    expect(err).toMatchObject({ message: "deadline" });
    expect(Date.now() - started).toBeLessThan(900);
    expect(s.calls).toHaveLength(2);
  });

  it("rewrites only the listed hosts", () => {
    const rw = rewriteHosts(["queue.fal.run", "rest.fal.ai"], "http://127.0.0.1:9999");
    expect(rw("https://queue.fal.run/fal-ai/nano-banana/edit?x=1")).toBe(
      "http://127.0.0.1:9999/fal-ai/nano-banana/edit?x=1",
    );
    expect(rw("https://v3.fal.media/files/a.png")).toBe("https://v3.fal.media/files/a.png");
  });
});
