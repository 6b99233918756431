import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerSum } from "@/core/credits";
import {
  fixture,
  signUp,
  solveBotCheck,
  startTestServer,
  submit,
  waitForTask,
  type TestServer,
} from "./harness";

/** Holes from the security review (the hardening issue), one test each. */
describe("hardening", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it("answers 400, not 500, to a NUL byte in the prompt, and keeps the bot-check token unspent", async () => {
    const user = await signUp(server);
    const up = await user.upload(fixture("pet-1-cat.png"), "cat.png", "image/png");
    const token = await solveBotCheck(server);
    const bad = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-y2k-style-ai",
      prompt: "neon\u0000pink",
      turnstileToken: token,
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ messageKey: "promptControl" });
    expect(await ledgerSum(server.services.db, user.id)).toBe(10);
    // The same token still works: nothing was spent on the refused request.
    const ok = await submit(user, {
      image_urls: [up.body.url],
      imageType: "nano-banana-lora-y2k-style-ai",
      prompt: "neon\npink",
      turnstileToken: token,
    });
    expect(ok.status).toBe(200);
    expect((await waitForTask(user, ok.body.data!.taskIds[0]!)).body.code).toBe(1);
  }, 60_000);

  it("answers 400, not 500, to a NUL byte in a task id, and 404 to one in a checkout id", async () => {
    const user = await signUp(server);
    const post = await user.json("/api/img/nano-banana/taskResult", { taskId: "abc\u0000def" });
    expect(post.status).toBe(400);
    const get = await user.fetch(`/api/img/nano-banana/taskEvents?taskId=${encodeURIComponent("abc\u0000")}`);
    expect(get.status).toBe(400);
    const checkout = await user.fetch(`/api/checkout/${encodeURIComponent("x\u0000y")}`);
    expect(checkout.status).toBe(404);
  });

  it("sends security headers on API answers, errors and better-auth's own included", async () => {
    for (const [path, init] of [
      ["/api/health", {}],
      ["/api/nope", {}],
      ["/api/auth/get-session", {}],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, init);
      expect(res.headers.get("x-frame-options"), path).toBe("DENY");
      expect(res.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(res.headers.get("referrer-policy"), path).toBe("strict-origin-when-cross-origin");
    }
  });

  it("takes state-changing calls with a session only from our own pages; webhooks stay open to their servers", async () => {
    const user = await signUp(server);
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/api/checkout`, {
        method: "POST",
        headers: { cookie: user.cookie, "content-type": "text/plain", ...headers },
        body: JSON.stringify({ productId: "credits-50" }),
      });
    const own = server.services.env.appUrl;
    // A sibling origin (another port, a sibling subdomain), no origin at all, or a browser
    // saying the call is cross-site: refused before anything is created.
    const refused: Array<Record<string, string>> = [
      { origin: "http://localhost:1" },
      {},
      { "sec-fetch-site": "same-site", origin: own },
      { "sec-fetch-site": "cross-site" },
    ];
    for (const headers of refused) {
      const res = await post(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(await res.json()).toMatchObject({ messageKey: "originRefused" });
    }
    // Our own page: through to the route.
    expect((await post({ origin: own })).status).not.toBe(403);
    expect((await post({ "sec-fetch-site": "same-origin" })).status).not.toBe(403);
    // A webhook has no page and no session; its signature is its check.
    const hook = await fetch(`${server.url}/api/webhooks/stripe`, { method: "POST", body: "{}" });
    expect(hook.status).not.toBe(403);
  });

  it("bounds every body and the user's name: a 1 MB JSON post is a 413, a 20 000-character name a 400", async () => {
    const user = await signUp(server);
    const huge = await user.json("/api/img/nano-banana/submit", {
      prompt: "x".repeat(1024 * 1024),
      image_urls: [],
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ messageKey: "requestTooLarge" });
    const origin = server.services.env.appUrl;
    const signUpWith = (name: string, email: string) =>
      fetch(`${server.url}/api/auth/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin },
        body: JSON.stringify({ email, password: "correct-horse-battery", name }),
      });
    const long = await signUpWith("N".repeat(20_000), `long-${Date.now()}@example.com`);
    expect(long.status).toBe(400);
    // A 2 MB sign-up is refused from its Content-Length: a 413 before the body is read (the
    // server may close the connection while the client is still sending).
    const big = await signUpWith("N".repeat(2 * 1024 * 1024), `big-${Date.now()}@example.com`).then(
      (r) => r.status,
      (e: Error & { cause?: { code?: string } }) => e.cause?.code ?? String(e),
    );
    expect([413, "UND_ERR_SOCKET"]).toContain(big);
    // A normal name still signs up.
    expect((await signUpWith("Ada Lovelace", `ok-${Date.now()}@example.com`)).status).toBe(200);
  });
});

describe("hardening: who the client is", () => {
  let server: TestServer;
  beforeAll(async () => {
    // better-auth's own rate limit on (it is off outside production by default).
    server = await startTestServer({ env: { AUTH_RATE_LIMIT: "true" } });
  });
  afterAll(() => server?.close());

  it("a new X-Forwarded-For per request does not escape the sign-in rate limit (no trusted proxy)", async () => {
    const email = `target-${Date.now()}@example.com`;
    await signUp(server, email);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin: server.services.env.appUrl,
          "x-forwarded-for": `203.0.113.${i + 1}`,
          "x-photofx-client-ip": `198.51.100.${i + 1}`,
        },
        body: JSON.stringify({ email, password: `guess-${i}-wrong` }),
      });
      statuses.push(res.status);
    }
    expect(statuses, statuses.join(" ")).toContain(429);
  });
});
