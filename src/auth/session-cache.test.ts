import { describe, expect, it } from "vitest";
import { SessionCache } from "./session-cache";

describe("session cache", () => {
  const headers = (cookie?: string) => new Headers(cookie ? { cookie } : {});

  it("asks better-auth once per session cookie within the TTL, and again after forget()", async () => {
    let calls = 0;
    const cache = new SessionCache(async () => {
      calls++;
      return { id: "u1", email: "a@b.c", name: "A" };
    }, 1_000);
    const h = headers("theme=dark; better-auth.session_token=abc.sig");
    expect(await cache.resolve(h, 0)).toMatchObject({ id: "u1" });
    expect(await cache.resolve(headers("better-auth.session_token=abc.sig; theme=light"), 500)).toMatchObject(
      { id: "u1" },
    );
    expect(calls).toBe(1);
    await cache.resolve(h, 1_500);
    expect(calls).toBe(2);
    cache.forget(h);
    await cache.resolve(h, 1_600);
    expect(calls).toBe(3);
  });

  it("answers null without a lookup when there is no session cookie", async () => {
    let calls = 0;
    const cache = new SessionCache(async () => {
      calls++;
      return null;
    });
    expect(await cache.resolve(headers())).toBeNull();
    expect(await cache.resolve(headers("theme=dark"))).toBeNull();
    expect(calls).toBe(0);
  });
});
