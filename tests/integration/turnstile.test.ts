import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance } from "@/core/credits";
import { signUp, startTestServer, submit, type TestServer } from "./harness";

/**
 * A local stand-in for Cloudflare's siteverify endpoint, speaking its protocol: a
 * form-encoded POST (secret, response, remoteip) answered with {success, hostname, action}.
 * Tokens it knows: "good" (for our host), "other-host", "wrong-action"; each works once.
 */
function fakeSiteverify() {
  const seen: URLSearchParams[] = [];
  const spent = new Set<string>();
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const form = new URLSearchParams(raw);
      seen.push(form);
      const token = form.get("response") ?? "";
      const ok = form.get("secret") === "turnstile-secret" && !spent.has(token);
      spent.add(token);
      const answer = !ok
        ? { success: false, "error-codes": ["timeout-or-duplicate"] }
        : token.startsWith("good")
          ? { success: true, hostname: "localhost", action: "submit" }
          : token === "other-host"
            ? { success: true, hostname: "evil.example", action: "submit" }
            : token === "wrong-action"
              ? { success: true, hostname: "localhost", action: "login" }
              : { success: false, "error-codes": ["invalid-input-response"] };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer));
    });
  });
  return { server, seen };
}

describe("Cloudflare Turnstile bot-check", () => {
  const fake = fakeSiteverify();
  let server: TestServer;
  beforeAll(async () => {
    await new Promise<void>((r) => fake.server.listen(0, "127.0.0.1", r));
    server = await startTestServer({
      env: {
        TURNSTILE_SITE_KEY: "site-key",
        TURNSTILE_SECRET_KEY: "turnstile-secret",
        TURNSTILE_VERIFY_URL: `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/siteverify`,
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    fake.server.close();
  });

  it("tells the browser to run Turnstile with the site key", async () => {
    const res = await fetch(`${server.url}/api/botcheck/config`);
    expect(await res.json()).toEqual({ kind: "turnstile", siteKey: "site-key" });
    expect((await fetch(`${server.url}/api/botcheck/challenge`)).status).toBe(404);
  });

  it("accepts a token verified for our host and action once; refuses others and replays", async () => {
    const user = await signUp(server);
    const up = async () =>
      (
        await user.upload(
          Buffer.from(
            await (
              await import("sharp")
            )
              .default({ create: { width: 4, height: 4, channels: 3, background: "#123456" } })
              .png()
              .toBuffer(),
          ),
          "a.png",
          "image/png",
        )
      ).body.url;
    const payload = async (token: string | null) => ({
      image_urls: [await up()],
      imageType: "nano-banana-lora-inverted-face-filter",
      turnstileToken: token,
    });
    for (const token of [null, "garbage", "other-host", "wrong-action"]) {
      const res = await submit(user, await payload(token));
      expect(res.status, String(token)).toBe(400);
      expect(res.body.message).toBe("Verification failed. Please try again.");
    }
    // Unique per run: spent tokens outlive a test run in a shared Redis.
    const good = `good-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const ok = await submit(user, await payload(good));
    expect(ok.status).toBe(200);
    const replay = await submit(user, await payload(good));
    expect(replay.status).toBe(400);
    expect(await getBalance(server.services.db, user.id)).toBe(8);
    // siteverify got our secret and the caller's address.
    const last = fake.seen.find((f) => f.get("response") === good)!;
    expect(last.get("secret")).toBe("turnstile-secret");
    expect(last.get("remoteip")).toBe("127.0.0.1");
  });
});
