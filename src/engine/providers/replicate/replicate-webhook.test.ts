import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ReplicateWebhookHub, signReplicateWebhook, verifyReplicateWebhook } from "./replicate-webhook";

/** Standard Webhooks verification as Replicate signs its deliveries. */

const SECRET = `whsec_${Buffer.from("a-32-byte-synthetic-signing-key!").toString("base64")}`;
const NOW = 1_750_000_000_000;
const now = () => NOW;
const ts = Math.floor(NOW / 1000);
const BODY = JSON.stringify({
  id: "pred123",
  status: "succeeded",
  output: ["https://replicate.delivery/x.png"],
});

function headers(overrides: Record<string, string | undefined> = {}) {
  return {
    "webhook-id": "msg_1",
    "webhook-timestamp": String(ts),
    "webhook-signature": signReplicateWebhook(SECRET, "msg_1", ts, BODY),
    ...overrides,
  };
}

describe("verifyReplicateWebhook", () => {
  it("accepts a delivery signed with the secret, computed independently", () => {
    const key = Buffer.from(SECRET.slice("whsec_".length), "base64");
    const sig = createHmac("sha256", key).update(`msg_1.${ts}.${BODY}`).digest("base64");
    expect(
      verifyReplicateWebhook(headers({ "webhook-signature": `v1,${sig}` }), BODY, SECRET, { now }),
    ).toEqual({
      ok: true,
    });
    // Headers objects and byte bodies work too.
    expect(verifyReplicateWebhook(new Headers(headers()), Buffer.from(BODY), SECRET, { now }).ok).toBe(true);
  });

  it("accepts when one of several space-separated signatures matches", () => {
    const good = signReplicateWebhook(SECRET, "msg_1", ts, BODY);
    const list = `v1,${randomBytes(32).toString("base64")} v1a,whatever ${good}`;
    expect(verifyReplicateWebhook(headers({ "webhook-signature": list }), BODY, SECRET, { now }).ok).toBe(
      true,
    );
  });

  it("refuses a forged signature, another secret, a tampered body or a changed id", () => {
    const forged = `whsec_${randomBytes(32).toString("base64")}`;
    const cases = [
      headers({ "webhook-signature": signReplicateWebhook(forged, "msg_1", ts, BODY) }),
      headers({ "webhook-signature": `v1,${randomBytes(32).toString("base64")}` }),
      headers({ "webhook-signature": "v1,short" }),
      headers({ "webhook-id": "msg_2" }),
    ];
    for (const h of cases) {
      expect(verifyReplicateWebhook(h, BODY, SECRET, { now })).toEqual({
        ok: false,
        reason: "bad signature",
      });
    }
    expect(verifyReplicateWebhook(headers(), BODY.replace("pred123", "pred124"), SECRET, { now }).ok).toBe(
      false,
    );
  });

  it("refuses timestamps more than five minutes away, either way", () => {
    for (const t of [ts - 301, ts + 301]) {
      const h = headers({
        "webhook-timestamp": String(t),
        "webhook-signature": signReplicateWebhook(SECRET, "msg_1", t, BODY),
      });
      expect(verifyReplicateWebhook(h, BODY, SECRET, { now })).toEqual({
        ok: false,
        reason: "stale timestamp",
      });
    }
    const h = headers({
      "webhook-timestamp": String(ts - 299),
      "webhook-signature": signReplicateWebhook(SECRET, "msg_1", ts - 299, BODY),
    });
    expect(verifyReplicateWebhook(h, BODY, SECRET, { now }).ok).toBe(true);
    expect(verifyReplicateWebhook(headers({ "webhook-timestamp": "soon" }), BODY, SECRET, { now }).ok).toBe(
      false,
    );
  });

  it("refuses missing headers and an unusable secret", () => {
    expect(
      verifyReplicateWebhook(headers({ "webhook-signature": undefined }), BODY, SECRET, { now }),
    ).toEqual({
      ok: false,
      reason: "missing headers",
    });
    expect(verifyReplicateWebhook(headers(), BODY, "whsec_!!!", { now })).toEqual({
      ok: false,
      reason: "bad secret",
    });
  });
});

describe("ReplicateWebhookHub", () => {
  it("hands a verified terminal delivery to the waiting render, and keeps an early one", async () => {
    const hub = new ReplicateWebhookHub({ secret: SECRET, now });
    const waiting = hub.wait("pred123");
    expect(await hub.receive(BODY, headers())).toBeNull();
    await expect(waiting).resolves.toMatchObject({ id: "pred123", status: "succeeded" });

    const early = JSON.stringify({ id: "pred9", status: "failed", error: "boom" });
    const h = headers({ "webhook-signature": signReplicateWebhook(SECRET, "msg_1", ts, early) });
    expect(await hub.receive(early, h)).toBeNull();
    await expect(hub.wait("pred9")).resolves.toMatchObject({ status: "failed", error: "boom" });
  });

  it("refuses forged and malformed deliveries", async () => {
    const hub = new ReplicateWebhookHub({ secret: SECRET, now });
    const forged = `whsec_${randomBytes(32).toString("base64")}`;
    expect(
      await hub.receive(
        BODY,
        headers({ "webhook-signature": signReplicateWebhook(forged, "msg_1", ts, BODY) }),
      ),
    ).toBe("bad signature");
    const notJson = "not json";
    expect(
      await hub.receive(
        notJson,
        headers({ "webhook-signature": signReplicateWebhook(SECRET, "msg_1", ts, notJson) }),
      ),
    ).toBe("bad body");
  });

  it("rejects a wait when its signal aborts", async () => {
    const hub = new ReplicateWebhookHub({ secret: SECRET, now });
    const ctrl = new AbortController();
    const waiting = hub.wait("never", ctrl.signal);
    ctrl.abort(new Error("deadline"));
    await expect(waiting).rejects.toThrow("deadline");
  });
});
