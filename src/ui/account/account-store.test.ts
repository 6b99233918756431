import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

/** A browser-like window: this page's origin and a fetch that answers what each test says. */
const answers = new Map<string, { status: number; body: unknown }>();
const calls: string[] = [];
const serverFetch = vi.fn(async (input: RequestInfo | URL) => {
  const url = new URL(String(input), "http://app.test");
  calls.push(url.pathname);
  const a = answers.get(url.pathname) ?? { status: 200, body: {} };
  return new Response(JSON.stringify(a.body), { status: a.status });
});

let store: typeof import("./account-store");

beforeAll(async () => {
  vi.stubGlobal("window", {
    location: { href: "http://app.test/en/nano-banana-lora/gta-style-filter", origin: "http://app.test" },
    fetch: serverFetch,
  });
  vi.stubGlobal("fetch", (input: RequestInfo | URL, init?: RequestInit) => window.fetch(input, init));
  store = await import("./account-store");
});
afterAll(() => {
  vi.unstubAllGlobals();
});

const signedIn = {
  user: { id: "u1", email: "a@example.com", name: "A" },
  balance: 10,
  plan: { plan: "free", uploadCap: 2 },
};

describe("the account store after a 401", () => {
  it("switches to signed out when any of our API routes answers 401", async () => {
    answers.set("/api/me", { status: 200, body: signedIn });
    await store.refreshAccount();
    expect(store.getAccountState()).toMatchObject({ status: "signedIn", balance: 10 });

    answers.set("/api/upload", { status: 401, body: { message: "Please sign in to continue" } });
    const res = await window.fetch("/api/upload", { method: "POST" });
    expect(res.status).toBe(401); // the caller still gets the answer it asked for
    expect(store.getAccountState()).toEqual({ status: "signedOut" });
  });

  it("asks /api/me after a 401 from better-auth (a wrong password is not a lost session)", async () => {
    answers.set("/api/me", { status: 200, body: signedIn });
    await store.refreshAccount();
    answers.set("/api/auth/sign-in/email", { status: 401, body: {} });
    calls.length = 0;
    await window.fetch("/api/auth/sign-in/email", { method: "POST" });
    await vi.waitFor(() => expect(calls).toContain("/api/me"));
    await store.refreshAccount();
    expect(store.getAccountState()).toMatchObject({ status: "signedIn" });
  });

  it("ignores a 401 from another origin and other answers of our API", async () => {
    answers.set("/api/me", { status: 200, body: signedIn });
    await store.refreshAccount();
    answers.set("/api/history", { status: 404, body: {} });
    await window.fetch("/api/history");
    // Another site's 401 (the fake answers /api/upload with 401 since the first test).
    await window.fetch("https://other.example/api/upload");
    expect(store.getAccountState()).toMatchObject({ status: "signedIn" });
  });
});
