import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscription } from "@/core/schema";
import { getBalance, ledgerSum } from "@/core/credits";
import {
  signUp,
  solveBotCheck,
  startTestServer,
  submit,
  waitForTask,
  type TestServer,
  type TestUser,
} from "./harness";

const tiny = (i: number) =>
  sharp({ create: { width: 8, height: 8, channels: 3, background: { r: i * 20, g: 80, b: 160 } } })
    .png()
    .toBuffer();

async function uploads(user: TestUser, n: number): Promise<string[]> {
  const urls: string[] = [];
  for (let i = 0; i < n; i++)
    urls.push((await user.upload(await tiny(i), `${i}.png`, "image/png")).body.url!);
  return urls;
}

const mirror = "nano-banana-lora-inverted-face-filter";

async function subscribeViaTestCheckout(user: TestUser) {
  const start = await user.json<{ url: string; checkoutId: string }>("/api/checkout", { productId: "pro" });
  expect(start.status).toBe(200);
  const done = await user.json(`/api/checkout/test/${start.body.checkoutId}/complete`, {});
  expect(done.status).toBe(200);
  return start.body.checkoutId;
}

describe("plans, bot-check and the test checkout (embedded defaults)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { BOTCHECK_TTL_SECONDS: "2" } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("a free user is capped at 2 images per submit by the server", async () => {
    const user = await signUp(server);
    const res = await submit(user, { image_urls: await uploads(user, 3), imageType: mirror });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("UPGRADE_REQUIRED");
    expect(await getBalance(server.services.db, user.id)).toBe(10);
  });

  it("refuses a missing, wrong, expired or replayed bot-check token, and accepts a good one once", async () => {
    const user = await signUp(server);
    const [a, b, c, d] = await uploads(user, 4);
    for (const token of [null, "", "not-a-token", Buffer.from('{"challenge":{}}').toString("base64")]) {
      const res = await submit(user, { image_urls: [a], imageType: mirror, turnstileToken: token });
      expect(res.status, String(token)).toBe(400);
      expect(res.body.message).toBe("Verification failed. Please try again.");
      expect(res.body.message!.toLowerCase()).toContain("verification");
    }
    const good = await solveBotCheck(server);
    const first = await submit(user, { image_urls: [b], imageType: mirror, turnstileToken: good });
    expect(first.status).toBe(200);
    const replay = await submit(user, { image_urls: [c], imageType: mirror, turnstileToken: good });
    expect(replay.status).toBe(400);

    const stale = await solveBotCheck(server);
    await new Promise((r) => setTimeout(r, 3_100)); // BOTCHECK_TTL_SECONDS=2
    const expired = await submit(user, { image_urls: [d], imageType: mirror, turnstileToken: stale });
    expect(expired.status).toBe(400);

    await waitForTask(user, first.body.data!.taskIds[0]!);
    expect(await getBalance(server.services.db, user.id)).toBe(8); // only the accepted one paid
  });

  it("a subscriber skips the bot-check, uploads 5 at once, and is capped at the plan's limit", async () => {
    const user = await signUp(server);
    await subscribeViaTestCheckout(user);
    const plan = await user.json<{ plan: string; uploadCap: number }>("/api/plan");
    expect(plan.body).toMatchObject({ plan: "subscribed", uploadCap: 10 });
    expect(await getBalance(server.services.db, user.id)).toBe(10 + 300);

    const five = await submit(user, {
      image_urls: await uploads(user, 5),
      imageType: mirror,
      turnstileToken: null,
    });
    expect(five.status).toBe(200);
    expect(five.body.data!.taskIds).toHaveLength(5);

    const eleven = await submit(user, {
      image_urls: await uploads(user, 11),
      imageType: mirror,
      turnstileToken: null,
    });
    expect(eleven.status).toBe(400);
    expect(eleven.body.message).toBe("Premium users can upload up to 10 images at a time.");
    for (const id of five.body.data!.taskIds) await waitForTask(user, id);
    expect(await getBalance(server.services.db, user.id)).toBe(310 - 10);
  });

  it("the test checkout grants a pack once, through the fulfilment path", async () => {
    const user = await signUp(server);
    const start = await user.json<{ url: string; checkoutId: string }>("/api/checkout", {
      productId: "starter",
    });
    expect(start.body.url).toBe(`/checkout/test/${start.body.checkoutId}`);
    const other = await signUp(server);
    expect((await other.json(`/api/checkout/test/${start.body.checkoutId}/complete`, {})).status).toBe(404);
    expect(await getBalance(server.services.db, user.id)).toBe(10);
    await user.json(`/api/checkout/test/${start.body.checkoutId}/complete`, {});
    await user.json(`/api/checkout/test/${start.body.checkoutId}/complete`, {});
    expect(await getBalance(server.services.db, user.id)).toBe(50);
    expect(await ledgerSum(server.services.db, user.id)).toBe(50);
    const ledger = await user.json<{ entries: Array<{ kind: string; amount: number }> }>(
      "/api/credits/ledger",
    );
    expect(ledger.body.entries[0]).toMatchObject({ kind: "purchase", amount: 40 });
    const checkout = await user.json(`/api/checkout/${start.body.checkoutId}`);
    expect(checkout.body).toMatchObject({ status: "completed", kind: "pack" });
  });

  it("refuses an unknown product", async () => {
    const user = await signUp(server);
    const res = await user.json("/api/checkout", { productId: "gold-bars" });
    expect(res.status).toBe(400);
  });
});

/** A local stand-in for Stripe's API: answers Checkout Session creation like Stripe does. */
function fakeStripe() {
  const requests: Array<{ path: string; body: URLSearchParams }> = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      requests.push({ path: req.url ?? "", body: new URLSearchParams(raw) });
      if (req.method === "POST" && req.url === "/v1/checkout/sessions") {
        const id = `cs_test_${++n}`;
        res.writeHead(200, { "content-type": "application/json", "request-id": `req_${n}` });
        res.end(
          JSON.stringify({ id, object: "checkout.session", url: `https://checkout.stripe.test/c/pay/${id}` }),
        );
        return;
      }
      res.writeHead(404, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ error: { type: "invalid_request_error", message: "Unrecognized request URL" } }),
      );
    });
  });
  return { server, requests };
}

describe("Stripe checkout and webhooks", () => {
  const WEBHOOK_SECRET = "whsec_test_secret_for_photofx";
  const fake = fakeStripe();
  let server: TestServer;
  const stripe = new Stripe("sk_test_x");

  beforeAll(async () => {
    await new Promise<void>((r) => fake.server.listen(0, "127.0.0.1", r));
    const port = (fake.server.address() as AddressInfo).port;
    server = await startTestServer({
      env: {
        STRIPE_SECRET_KEY: "sk_test_photofx",
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_API_URL: `http://127.0.0.1:${port}`,
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    fake.server.close();
  });

  const deliver = (event: Record<string, unknown>, secret = WEBHOOK_SECRET) => {
    const payload = JSON.stringify(event);
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret });
    return fetch(`${server.url}/api/webhooks/stripe`, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": header },
      body: payload,
    });
  };
  const event = (id: string, type: string, object: Record<string, unknown>) => ({
    id,
    object: "event",
    type,
    api_version: "2025-01-01",
    created: Math.floor(Date.now() / 1000),
    data: { object },
  });

  it("creates a Checkout Session in payment mode for a pack", async () => {
    const user = await signUp(server);
    const res = await user.json<{ url: string; checkoutId: string }>("/api/checkout", {
      productId: "starter",
    });
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(/^https:\/\/checkout\.stripe\.test\//);
    const sent = fake.requests.at(-1)!;
    expect(sent.body.get("mode")).toBe("payment");
    expect(sent.body.get("client_reference_id")).toBe(res.body.checkoutId);
    expect(sent.body.get("line_items[0][price_data][unit_amount]")).toBe("499");
  });

  it("grants a pack once per event however often it arrives, and refuses a forged signature", async () => {
    const user = await signUp(server);
    const { body } = await user.json<{ checkoutId: string }>("/api/checkout", { productId: "starter" });
    const completed = event("evt_pack_1", "checkout.session.completed", {
      id: "cs_test_x",
      object: "checkout.session",
      client_reference_id: body.checkoutId,
      payment_status: "paid",
      metadata: {},
    });
    const forged = await deliver(completed, "whsec_wrong");
    expect(forged.status).toBe(400);
    expect(await getBalance(server.services.db, user.id)).toBe(10);

    expect((await deliver(completed)).status).toBe(200);
    const again = await deliver(completed);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ applied: "duplicate" });
    expect(await getBalance(server.services.db, user.id)).toBe(50);
    expect(await ledgerSum(server.services.db, user.id)).toBe(50);

    const unsigned = await fetch(`${server.url}/api/webhooks/stripe`, {
      method: "POST",
      body: JSON.stringify(completed),
    });
    expect(unsigned.status).toBe(400);
  });

  it("waits for an asynchronous payment to succeed before granting", async () => {
    const user = await signUp(server);
    const { body } = await user.json<{ checkoutId: string }>("/api/checkout", { productId: "creator" });
    const session = {
      id: "cs_async",
      object: "checkout.session",
      client_reference_id: body.checkoutId,
      metadata: {},
    };
    await deliver(
      event("evt_async_1", "checkout.session.completed", { ...session, payment_status: "unpaid" }),
    );
    expect(await getBalance(server.services.db, user.id)).toBe(10);
    await deliver(
      event("evt_async_2", "checkout.session.async_payment_succeeded", {
        ...session,
        payment_status: "paid",
      }),
    );
    await deliver(
      event("evt_async_2", "checkout.session.async_payment_succeeded", {
        ...session,
        payment_status: "paid",
      }),
    );
    expect(await getBalance(server.services.db, user.id)).toBe(210);
  });

  it("a subscription: each paid invoice grants the month's credits; a cancellation drops the cap at period end", async () => {
    const user = await signUp(server);
    const { body } = await user.json<{ checkoutId: string }>("/api/checkout", { productId: "pro" });
    expect(fake.requests.at(-1)!.body.get("mode")).toBe("subscription");
    const periodEnd = Math.floor(Date.now() / 1000) + 30 * 86400;
    await deliver(
      event("evt_sub_1", "checkout.session.completed", {
        id: "cs_sub",
        object: "checkout.session",
        client_reference_id: body.checkoutId,
        payment_status: "paid",
        subscription: "sub_123",
        customer: "cus_1",
        metadata: {},
      }),
    );
    const invoice = (id: string, end: number) => ({
      id,
      object: "invoice",
      customer: "cus_1",
      period_end: end,
      parent: {
        subscription_details: { subscription: "sub_123", metadata: { userId: user.id, productId: "pro" } },
      },
      lines: { data: [{ period: { start: end - 30 * 86400, end } }] },
    });
    await deliver(event("evt_inv_1", "invoice.paid", invoice("in_1", periodEnd)));
    await deliver(event("evt_inv_1", "invoice.paid", invoice("in_1", periodEnd)));
    expect(await getBalance(server.services.db, user.id)).toBe(310);
    // A renewal next month.
    await deliver(event("evt_inv_2", "invoice.paid", invoice("in_2", periodEnd + 30 * 86400)));
    expect(await getBalance(server.services.db, user.id)).toBe(610);
    expect((await user.json("/api/plan")).body).toMatchObject({ plan: "subscribed", status: "active" });

    // Canceled: still subscribed until the paid period ends…
    await deliver(
      event("evt_del_1", "customer.subscription.deleted", { id: "sub_123", object: "subscription" }),
    );
    expect((await user.json("/api/plan")).body).toMatchObject({ plan: "subscribed", status: "canceled" });
    const three = await uploads(user, 3);
    expect((await submit(user, { image_urls: three, imageType: mirror, turnstileToken: null })).status).toBe(
      200,
    );
    // …then back to the free cap.
    await server.services.db
      .update(subscription)
      .set({ currentPeriodEnd: new Date(Date.now() - 1000) })
      .where(eq(subscription.userId, user.id));
    expect((await user.json("/api/plan")).body).toMatchObject({ plan: "free", uploadCap: 2 });
    const res = await submit(user, { image_urls: await uploads(user, 3), imageType: mirror });
    expect(res.status).toBe(403);
  });
});
