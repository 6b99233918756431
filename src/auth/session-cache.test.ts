import { describe, expect, it } from "vitest";
import { readCookie, SessionCache, type ResolvedSession } from "./session-cache";

const NAME = "better-auth.session_token";
const SIG = "k2Xv+9/abcdefghijklmnopqrstuvwxyz0123456789=";
const headers = (cookie?: string) => new Headers(cookie ? { cookie } : {});

/** A fake better-auth: sessions by token, with a count of lookups. */
function fakeAuth(sessions: Record<string, Omit<ResolvedSession, "token">>) {
  const state = { calls: 0, live: new Map(Object.entries(sessions)) };
  const lookup = async (h: Headers): Promise<ResolvedSession | null> => {
    state.calls++;
    const value = readCookie(h.get("cookie"), NAME);
    const token = value?.slice(0, value.lastIndexOf("."));
    const s = token ? state.live.get(token) : undefined;
    return s && token ? { ...s, token } : null;
  };
  return { state, lookup };
}

const alice = { user: { id: "u1", email: "a@b.c", name: "A" }, sessionId: "s1", expiresAt: 10_000_000 };
const alice2 = { user: { id: "u1", email: "a@b.c", name: "A" }, sessionId: "s2", expiresAt: 10_000_000 };
const bob = { user: { id: "u2", email: "b@b.c", name: "B" }, sessionId: "s3", expiresAt: 10_000_000 };

describe("session cache", () => {
  it("reads the session cookie as better-call does: first pair, unquoted, percent-decoded", () => {
    expect(readCookie(`theme=dark; ${NAME}=abc.${encodeURIComponent(SIG)}`, NAME)).toBe(`abc.${SIG}`);
    expect(readCookie(`${NAME}="abc.x"; ${NAME}=other.y`, NAME)).toBe("abc.x");
    expect(readCookie(`x${NAME}=no; ${NAME}=abc.%E0`, NAME)).toBe("abc.%E0");
    expect(readCookie("theme=dark", NAME)).toBeNull();
  });

  it("asks better-auth once per session within the TTL, whatever the cookie's encoding or neighbours", async () => {
    const { state, lookup } = fakeAuth({ abc: alice });
    const cache = new SessionCache(lookup, { cookieName: NAME, ttlMs: 1_000 });
    const raw = headers(`theme=dark; ${NAME}=abc.${SIG}`);
    const encoded = headers(`${NAME}=abc.${encodeURIComponent(SIG)}; theme=light`);
    expect(await cache.resolve(raw, 0)).toMatchObject({ id: "u1" });
    expect(await cache.resolve(encoded, 500)).toMatchObject({ id: "u1" });
    expect(state.calls).toBe(1);
    await cache.resolve(raw, 1_500);
    expect(state.calls).toBe(2);
  });

  it("forget() drops the session under every encoding of its cookie", async () => {
    const { state, lookup } = fakeAuth({ abc: alice });
    const cache = new SessionCache(lookup, { cookieName: NAME });
    const raw = headers(`${NAME}=abc.${SIG}`);
    const encoded = headers(`${NAME}=abc.${encodeURIComponent(SIG)}`);
    await cache.resolve(raw, 0);
    cache.forget(raw);
    state.live.delete("abc"); // signed out
    expect(await cache.resolve(encoded, 1)).toBeNull();
    expect(await cache.resolve(raw, 2)).toBeNull();
  });

  it("evict() drops ended sessions by id, and every session of a user by user id", async () => {
    const { state, lookup } = fakeAuth({ a1: alice, a2: alice2, b1: bob });
    const cache = new SessionCache(lookup, { cookieName: NAME });
    const h = (t: string) => headers(`${NAME}=${t}.${SIG}`);
    for (const t of ["a1", "a2", "b1"]) await cache.resolve(h(t), 0);
    expect(state.calls).toBe(3);

    state.live.delete("a2");
    cache.evict({ sessionIds: ["s2"] });
    expect(await cache.resolve(h("a2"), 1)).toBeNull();
    expect(await cache.resolve(h("a1"), 1)).toMatchObject({ id: "u1" });
    expect(state.calls).toBe(4); // a1 still cached

    state.live.delete("a1");
    cache.evict({ userIds: ["u1"] });
    expect(await cache.resolve(h("a1"), 2)).toBeNull();
    expect(await cache.resolve(h("b1"), 2)).toMatchObject({ id: "u2" });
    expect(state.calls).toBe(5); // bob's untouched
  });

  it("does not store an answer that raced with a revocation", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let calls = 0;
    const cache = new SessionCache(
      async () => {
        calls++;
        if (calls === 1) await gate;
        return calls === 1 ? { ...alice, token: "abc" } : null;
      },
      { cookieName: NAME },
    );
    const h = headers(`${NAME}=abc.${SIG}`);
    const first = cache.resolve(h, 0);
    cache.evict({ sessionIds: ["s1"] }); // the session ends while better-auth is answering
    release();
    expect(await first).toMatchObject({ id: "u1" });
    expect(await cache.resolve(h, 1)).toBeNull();
    expect(calls).toBe(2);
  });

  it("never keeps a session past its expiry", async () => {
    const { state, lookup } = fakeAuth({ abc: { ...alice, expiresAt: 100 } });
    const cache = new SessionCache(lookup, { cookieName: NAME });
    const h = headers(`${NAME}=abc.${SIG}`);
    await cache.resolve(h, 0);
    await cache.resolve(h, 50);
    expect(state.calls).toBe(1);
    await cache.resolve(h, 100);
    expect(state.calls).toBe(2);
  });

  it("answers null without a lookup when there is no session cookie", async () => {
    const { state, lookup } = fakeAuth({});
    const cache = new SessionCache(lookup, { cookieName: NAME });
    expect(await cache.resolve(headers())).toBeNull();
    expect(await cache.resolve(headers("theme=dark"))).toBeNull();
    expect(state.calls).toBe(0);
  });
});
