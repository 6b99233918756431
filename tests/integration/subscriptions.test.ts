import { and, eq } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBalance, ledgerSum } from "@/core/credits";
import { checkoutSession, refusedSubscription, subscription } from "@/core/schema";
import { deliverStripeEvent, stripeFake } from "./fakes/stripe-fake";
import { signUp, startTestServer, type TestServer, type TestUser } from "./harness";

/**
 * Subscriptions a paying user sees and manages: one plan at a time (a second purchase is
 * refused with nothing written, and a raced second subscription is never applied, and with
 * Stripe cancelled and refunded), cancel at period end and resume, Stripe's customer portal,
 * and Stripe's subscription webhooks.
 */

interface View {
  planId: string;
  status: string;
  live: boolean;
  periodEnd: string;
  cancelAtPeriodEnd: boolean;
  renews: boolean;
  canCancel: boolean;
  canResume: boolean;
  canManageBilling: boolean;
}
interface Refusal {
  code?: string;
  messageKey?: string;
  messageValues?: Record<string, string>;
}

const PRICING = JSON.stringify({
  currency: "usd",
  packs: [{ id: "starter", name: "Starter", credits: 40, priceCents: 499 }],
  plans: [
    { id: "pro", name: "Pro", monthlyCredits: 300, priceCents: 1299 },
    { id: "max", name: "Max", monthlyCredits: 1000, priceCents: 3999, uploadCap: 20 },
  ],
});

const subRow = async (server: TestServer, userId: string) =>
  (await server.services.db.select().from(subscription).where(eq(subscription.userId, userId)))[0];
const checkouts = (server: TestServer, userId: string) =>
  server.services.db.select().from(checkoutSession).where(eq(checkoutSession.userId, userId));
const view = async (u: TestUser) =>
  (await u.json<{ checkout: string; subscription: View | null }>("/api/subscription")).body;

describe("subscriptions with the test checkout", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { PRICING_JSON: PRICING } });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function buy(u: TestUser, productId = "pro") {
    const start = await u.json<{ checkoutId: string }>("/api/checkout", { productId });
    expect(start.status).toBe(200);
    const done = await u.json(`/api/checkout/test/${start.body.checkoutId}/complete`, {});
    expect(done.status).toBe(200);
    return start.body.checkoutId;
  }

  it("refuses a second purchase of the plan the user has, with a translated reason and nothing written", async () => {
    const u = await signUp(server);
    await buy(u);
    const before = { row: await subRow(server, u.id), checkouts: (await checkouts(server, u.id)).length };
    expect(before.row).toMatchObject({ planId: "pro", status: "active", cancelAtPeriodEnd: false });

    const again = await u.json<Refusal>("/api/checkout", { productId: "pro" });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      code: "ALREADY_SUBSCRIBED",
      messageKey: "alreadySubscribed",
      messageValues: { plan: "Pro" },
    });
    expect((await checkouts(server, u.id)).length).toBe(before.checkouts);
    expect(await subRow(server, u.id)).toEqual(before.row);
    expect(await getBalance(server.services.db, u.id)).toBe(310);

    // Packs are still sold to a subscriber.
    expect((await u.json("/api/checkout", { productId: "starter" })).status).toBe(200);
    // What the pages show.
    expect(await view(u)).toMatchObject({
      checkout: "test",
      subscription: { planId: "pro", live: true, renews: true, canCancel: true, canResume: false },
    });
  });

  it("of checkouts started before either completed, only the first to complete applies; the others change nothing", async () => {
    const u = await signUp(server);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await u.json<{ checkoutId: string }>("/api/checkout", { productId: "pro" })).body.checkoutId);
    }
    const results = await Promise.all(
      ids.map((id) => u.json<Refusal>(`/api/checkout/test/${id}/complete`, {})),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 409);
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(2);
    for (const r of refused) expect(r.body.messageKey).toBe("alreadySubscribed");

    // One month's credits, one subscription, from the checkout that won.
    expect(await getBalance(server.services.db, u.id)).toBe(310);
    expect(await ledgerSum(server.services.db, u.id)).toBe(310);
    const winner = ids[results.findIndex((r) => r.status === 200)]!;
    const row = await subRow(server, u.id);
    expect(row?.providerSubscriptionId).toBe(`test_sub_${winner}`);
    const periodEnd = row!.currentPeriodEnd.getTime();

    // The losers are recorded as refused, and pressing Pay on them again stays refused.
    const rows = await checkouts(server, u.id);
    expect(
      rows
        .filter((c) => c.status === "refused")
        .map((c) => c.id)
        .sort(),
    ).toEqual(ids.filter((id) => id !== winner).sort());
    const refusals = await server.services.db
      .select()
      .from(refusedSubscription)
      .where(eq(refusedSubscription.userId, u.id));
    expect(refusals).toHaveLength(2);
    for (const r of refusals) expect(r.settledAt).not.toBeNull();
    const loser = ids.find((id) => id !== winner)!;
    expect((await u.json(`/api/checkout/test/${loser}/complete`, {})).status).toBe(409);
    expect(await getBalance(server.services.db, u.id)).toBe(310);
    expect((await subRow(server, u.id))!.currentPeriodEnd.getTime()).toBe(periodEnd);
  });

  it("cancel at period end keeps the plan until its end date, resume before then, then it lapses", async () => {
    const u = await signUp(server);
    await buy(u);
    const periodEnd = (await subRow(server, u.id))!.currentPeriodEnd.toISOString();

    const cancelled = await u.json<{ subscription: View }>("/api/subscription/cancel", {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.subscription).toMatchObject({
      cancelAtPeriodEnd: true,
      renews: false,
      live: true,
      periodEnd,
      canCancel: false,
      canResume: true,
    });
    // Still subscribed (the plan's cap) until the end date.
    expect((await u.json("/api/plan")).body).toMatchObject({ plan: "subscribed", uploadCap: 10 });
    // Buying it again is still refused: resume instead.
    const again = await u.json<Refusal>("/api/checkout", { productId: "pro" });
    expect(again.status).toBe(409);
    expect(again.body.messageKey).toBe("alreadySubscribedResume");
    // Twice is harmless.
    expect((await u.json("/api/subscription/cancel", {})).status).toBe(200);

    const resumed = await u.json<{ subscription: View }>("/api/subscription/resume", {});
    expect(resumed.status).toBe(200);
    expect(resumed.body.subscription).toMatchObject({ cancelAtPeriodEnd: false, renews: true, periodEnd });

    await u.json("/api/subscription/cancel", {});
    // The end date passes: the plan lapses and is not renewed.
    await server.services.db
      .update(subscription)
      .set({ currentPeriodEnd: new Date(Date.now() - 1000) })
      .where(eq(subscription.userId, u.id));
    await server.services.sweep();
    expect((await u.json("/api/plan")).body).toMatchObject({ plan: "free", uploadCap: 2 });
    expect(await getBalance(server.services.db, u.id)).toBe(310);
    expect((await view(u)).subscription).toMatchObject({ live: false, canCancel: false, canResume: false });
    // Nothing left to resume; the plan can be bought again.
    const late = await u.json<Refusal>("/api/subscription/resume", {});
    expect(late.status).toBe(404);
    expect(late.body.messageKey).toBe("noSubscription");
    await buy(u);
    expect(await getBalance(server.services.db, u.id)).toBe(610);
  });

  it("a test subscription not cancelled renews when its period ends, once", async () => {
    const u = await signUp(server);
    await buy(u);
    await server.services.db
      .update(subscription)
      .set({ currentPeriodEnd: new Date(Date.now() - 1000) })
      .where(eq(subscription.userId, u.id));
    await server.services.sweep();
    await server.services.sweep();
    expect(await getBalance(server.services.db, u.id)).toBe(610);
    const row = await subRow(server, u.id);
    expect(row!.currentPeriodEnd.getTime()).toBeGreaterThan(Date.now() + 29 * 86400_000);
    expect((await u.json("/api/plan")).body).toMatchObject({ plan: "subscribed" });
  });

  it("another plan is sold only once the current one is set to end, and then replaces it", async () => {
    const u = await signUp(server);
    await buy(u, "pro");
    const switchNow = await u.json<Refusal>("/api/checkout", { productId: "max" });
    expect(switchNow.status).toBe(409);
    expect(switchNow.body).toMatchObject({
      messageKey: "switchPlanCancelFirst",
      messageValues: { plan: "Pro" },
    });
    await u.json("/api/subscription/cancel", {});
    await buy(u, "max");
    expect(await subRow(server, u.id)).toMatchObject({
      planId: "max",
      status: "active",
      cancelAtPeriodEnd: false,
    });
    expect((await u.json("/api/plan")).body).toMatchObject({ plan: "subscribed", uploadCap: 20 });
    expect(await getBalance(server.services.db, u.id)).toBe(10 + 300 + 1000);
  });

  it("a user without a subscription has nothing to cancel, resume or manage", async () => {
    const u = await signUp(server);
    expect(await view(u)).toEqual({ checkout: "test", subscription: null });
    for (const path of ["cancel", "resume", "portal"]) {
      const res = await u.json<Refusal>(`/api/subscription/${path}`, {});
      expect(res.status, path).toBe(404);
      expect(res.body.messageKey).toBe("noSubscription");
    }
    // Someone else's subscription is not theirs to cancel.
    const other = await signUp(server);
    await buy(other);
    expect((await u.json("/api/subscription/cancel", {})).status).toBe(404);
    expect((await subRow(server, other.id))!.cancelAtPeriodEnd).toBe(false);
    expect((await fetch(`${server.url}/api/subscription`)).status).toBe(401);
  });
});

describe("subscriptions with Stripe", () => {
  const SECRET = "whsec_subscriptions_test_secret";
  const fake = stripeFake();
  let server: TestServer;
  let stripeApi: string;

  beforeAll(async () => {
    stripeApi = await fake.listen();
    server = await startTestServer({
      env: {
        STRIPE_SECRET_KEY: "sk_test_photofx",
        STRIPE_WEBHOOK_SECRET: SECRET,
        STRIPE_API_URL: stripeApi,
        TEST_CHECKOUT: "false",
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await fake.close();
  });

  const deliver = (event: object) => deliverStripeEvent(server.url, SECRET, event);
  const sessionOf = (url: string) => /\/c\/pay\/(cs_[A-Za-z0-9_]+)$/.exec(url)![1]!;
  const calls = (method: string, path: RegExp) =>
    fake.requests.filter((r) => r.method === method && path.test(r.path));

  /** Our checkout, then the customer pays it at Stripe; returns the events without delivering them. */
  async function payAtStripe(u: TestUser) {
    const start = await u.json<{ url: string; checkoutId: string }>("/api/checkout", { productId: "pro" });
    expect(start.status).toBe(200);
    return { checkoutId: start.body.checkoutId, ...fake.pay(sessionOf(start.body.url)) };
  }

  async function subscribe(u: TestUser) {
    const paid = await payAtStripe(u);
    expect((await deliver(paid.completed)).status).toBe(200);
    expect((await deliver(paid.invoicePaid!)).status).toBe(200);
    expect(await subRow(server, u.id)).toMatchObject({
      status: "active",
      providerSubscriptionId: paid.subscriptionId,
    });
    return paid.subscriptionId!;
  }

  /**
   * A second Checkout Session for the plan that got past the creation check (two requests
   * at the same instant): made at Stripe directly, as our server would have, with our checkout row.
   */
  async function racedSession(u: TestUser) {
    const checkoutId = `race_${Math.random().toString(36).slice(2)}`;
    await server.services.db
      .insert(checkoutSession)
      .values({ id: checkoutId, userId: u.id, productId: "pro", kind: "plan", provider: "stripe" });
    const api = new URL(stripeApi);
    const client = new Stripe("sk_test_photofx", {
      host: api.hostname,
      port: Number(api.port),
      protocol: "http",
    });
    const metadata = { checkoutId, userId: u.id, productId: "pro" };
    const session = await client.checkout.sessions.create({
      mode: "subscription",
      client_reference_id: checkoutId,
      customer_email: u.email,
      metadata,
      subscription_data: { metadata },
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: "usd",
            unit_amount: 1299,
            product_data: { name: "Pro" },
            recurring: { interval: "month" },
          },
        },
      ],
      success_url: `${server.url}/checkout/success`,
    });
    return { checkoutId, ...fake.pay(session.id) };
  }

  it("refuses a second subscription to the plan before creating a Checkout Session", async () => {
    const u = await signUp(server);
    await subscribe(u);
    const sessionsBefore = calls("POST", /^\/v1\/checkout\/sessions$/).length;
    const rowsBefore = (await checkouts(server, u.id)).length;
    const again = await u.json<Refusal>("/api/checkout", { productId: "pro" });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "ALREADY_SUBSCRIBED", messageKey: "alreadySubscribed" });
    expect(calls("POST", /^\/v1\/checkout\/sessions$/).length).toBe(sessionsBefore);
    expect((await checkouts(server, u.id)).length).toBe(rowsBefore);
    expect(await getBalance(server.services.db, u.id)).toBe(310);
  });

  it("a new plan checkout expires the user's earlier one still open, and is refused when that one was already paid", async () => {
    const u = await signUp(server);
    const first = await u.json<{ url: string; checkoutId: string }>("/api/checkout", { productId: "pro" });
    const firstSession = sessionOf(first.body.url);
    const second = await u.json<{ url: string }>("/api/checkout", { productId: "pro" });
    expect(second.status).toBe(200);
    expect(calls("POST", new RegExp(`^/v1/checkout/sessions/${firstSession}/expire$`))).toHaveLength(1);
    expect(fake.sessions.get(firstSession)!.status).toBe("expired");
    expect(() => fake.pay(firstSession)).toThrow(/not open/);
    const [firstRow] = (await checkouts(server, u.id)).filter((c) => c.id === first.body.checkoutId);
    expect(firstRow?.status).toBe("canceled");

    // The second is paid at Stripe, its webhook not yet here: a third checkout is refused.
    fake.pay(sessionOf(second.body.url));
    const created = calls("POST", /^\/v1\/checkout\/sessions$/).length;
    const third = await u.json<Refusal>("/api/checkout", { productId: "pro" });
    expect(third.status).toBe(409);
    expect(third.body.messageKey).toBe("subscriptionPending");
    expect(calls("POST", /^\/v1\/checkout\/sessions$/).length).toBe(created);
  });

  it("a raced second subscription is not applied: cancelled at Stripe at once and its payment refunded", async () => {
    const u = await signUp(server);
    const first = await subscribe(u);
    const before = await subRow(server, u.id);
    const race = await racedSession(u);

    // Stripe cannot be reached the first time: a 500, so Stripe delivers the event again.
    fake.fail("DELETE", new RegExp(`^/v1/subscriptions/${race.subscriptionId}$`));
    const failed = await deliver(race.completed);
    expect(failed.status).toBe(500);
    const retried = await deliver(race.completed);
    expect(retried.status).toBe(200);

    const cancel = calls("DELETE", new RegExp(`^/v1/subscriptions/${race.subscriptionId}$`)).at(-1)!;
    expect(cancel.params.get("invoice_now")).toBe("false");
    expect(cancel.params.get("prorate")).toBe("false");
    expect(fake.subscriptions.get(race.subscriptionId!)!.status).toBe("canceled");
    const refunds = [...fake.refunds.values()];
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({
      reason: "duplicate",
      amount: 1299,
      metadata: { subscription: race.subscriptionId },
    });

    // Its invoice arrives too: no credits, no second refund.
    expect(await (await deliver(race.invoicePaid!)).json()).toMatchObject({ applied: "refused" });
    expect(fake.refunds.size).toBe(1);
    expect(await getBalance(server.services.db, u.id)).toBe(310);
    expect(await subRow(server, u.id)).toEqual(before);
    expect(fake.subscriptions.get(first)!.status).toBe("active");

    const [refusal] = await server.services.db
      .select()
      .from(refusedSubscription)
      .where(eq(refusedSubscription.providerSubscriptionId, race.subscriptionId!));
    expect(refusal).toMatchObject({ userId: u.id, planId: "pro", checkoutId: race.checkoutId });
    expect(refusal!.settledAt).not.toBeNull();
    const [raceCheckout] = await server.services.db
      .select()
      .from(checkoutSession)
      .where(and(eq(checkoutSession.id, race.checkoutId)));
    expect(raceCheckout?.status).toBe("refused");

    // Stripe then reports the duplicate deleted: the user's subscription is untouched.
    await deliver(fake.subscriptionEvent("customer.subscription.deleted", race.subscriptionId!));
    expect(await subRow(server, u.id)).toEqual(before);
  });

  it("a raced second subscription whose invoice arrives before its checkout event is refused too", async () => {
    const u = await signUp(server);
    await subscribe(u);
    const race = await racedSession(u);
    const res = await deliver(race.invoicePaid!);
    expect(await res.json()).toMatchObject({ applied: "refused" });
    expect(await (await deliver(race.completed)).json()).toMatchObject({ applied: "refused" });
    expect(await getBalance(server.services.db, u.id)).toBe(310);
    expect(fake.subscriptions.get(race.subscriptionId!)!.status).toBe("canceled");
    expect(
      [...fake.refunds.values()].filter(
        (r) => (r.metadata as Record<string, string>).subscription === race.subscriptionId,
      ),
    ).toHaveLength(1);
  });

  it("cancel sets cancel_at_period_end at Stripe and keeps the plan until the end; resume clears it", async () => {
    const u = await signUp(server);
    const subId = await subscribe(u);
    const updates = () => calls("POST", new RegExp(`^/v1/subscriptions/${subId}$`));

    const cancelled = await u.json<{ subscription: View }>("/api/subscription/cancel", {});
    expect(cancelled.status).toBe(200);
    expect(updates().at(-1)!.params.get("cancel_at_period_end")).toBe("true");
    expect(fake.subscriptions.get(subId)!.cancelAtPeriodEnd).toBe(true);
    expect(cancelled.body.subscription).toMatchObject({
      cancelAtPeriodEnd: true,
      renews: false,
      live: true,
      canResume: true,
    });
    expect((await u.json("/api/plan")).body).toMatchObject({ plan: "subscribed" });

    const resumed = await u.json<{ subscription: View }>("/api/subscription/resume", {});
    expect(resumed.status).toBe(200);
    expect(updates().at(-1)!.params.get("cancel_at_period_end")).toBe("false");
    expect(fake.subscriptions.get(subId)!.cancelAtPeriodEnd).toBe(false);
    expect(resumed.body.subscription).toMatchObject({ cancelAtPeriodEnd: false, renews: true });

    // Stripe unreachable: a translated refusal and nothing changed here.
    fake.fail("POST", new RegExp(`^/v1/subscriptions/${subId}$`));
    const down = await u.json<Refusal>("/api/subscription/cancel", {});
    expect(down.status).toBe(503);
    expect(down.body.messageKey).toBe("billingUnavailable");
    expect((await subRow(server, u.id))!.cancelAtPeriodEnd).toBe(false);
  });

  it("Manage billing opens Stripe's customer portal for the user's customer, returning to the account page", async () => {
    const u = await signUp(server);
    await subscribe(u);
    const customer = (await subRow(server, u.id))!.providerCustomerId;
    expect((await view(u)).subscription).toMatchObject({ canManageBilling: true, canCancel: true });

    const res = await u.json<{ url: string }>("/api/subscription/portal", { locale: "de" });
    expect(res.status).toBe(200);
    expect(res.body.url).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session\/bps_test_/);
    const sent = calls("POST", /^\/v1\/billing_portal\/sessions$/).at(-1)!;
    expect(sent.params.get("customer")).toBe(customer);
    expect(sent.params.get("return_url")).toBe(`${server.services.env.appUrl}/de/account`);

    expect((await u.json("/api/subscription/portal", { locale: "xx" })).status).toBe(400);
    const stranger = await signUp(server);
    expect((await stranger.json("/api/subscription/portal", {})).status).toBe(404);
  });

  it("customer.subscription.updated and .deleted keep the row in step, never going back to an older state", async () => {
    const u = await signUp(server);
    const subId = await subscribe(u);

    // Cancelled in Stripe's portal (a cancel_at date, as the portal sets it).
    fake.updateSubscription(subId, { cancelAt: Math.floor(Date.now() / 1000) + 20 * 86400 });
    const cancelledEvent = fake.subscriptionEvent("customer.subscription.updated", subId);
    expect(await (await deliver(cancelledEvent)).json()).toMatchObject({ applied: "applied" });
    expect(await subRow(server, u.id)).toMatchObject({ cancelAtPeriodEnd: true, status: "active" });
    expect((await view(u)).subscription).toMatchObject({ renews: false, canResume: true });

    // Resumed there a moment later; then the older event is delivered again late.
    fake.updateSubscription(subId, { cancelAt: null });
    const resumedEvent = { ...fake.subscriptionEvent("customer.subscription.updated", subId) };
    resumedEvent.created = cancelledEvent.created + 5;
    await deliver(resumedEvent);
    expect((await subRow(server, u.id))!.cancelAtPeriodEnd).toBe(false);
    const stale = { ...cancelledEvent, id: `${cancelledEvent.id}_late` };
    expect(await (await deliver(stale)).json()).toMatchObject({ applied: "ignored" });
    expect((await subRow(server, u.id))!.cancelAtPeriodEnd).toBe(false);

    // A failed renewal payment.
    fake.updateSubscription(subId, { status: "past_due" });
    const pastDue = fake.subscriptionEvent("customer.subscription.updated", subId);
    pastDue.created = cancelledEvent.created + 10;
    await deliver(pastDue);
    expect((await subRow(server, u.id))!.status).toBe("past_due");

    // Ended at Stripe: canceled, the paid period keeps the plan until its end.
    fake.updateSubscription(subId, { status: "canceled" });
    await deliver(fake.subscriptionEvent("customer.subscription.deleted", subId));
    expect((await subRow(server, u.id))!.status).toBe("canceled");
    expect((await u.json("/api/plan")).body).toMatchObject({ plan: "subscribed", status: "canceled" });
    expect((await view(u)).subscription).toMatchObject({ canCancel: false, canResume: false, renews: false });

    // An event for a subscription we do not know changes nothing.
    const unknown = await deliver({
      ...pastDue,
      id: "evt_unknown",
      data: { object: { ...pastDue.data.object, id: "sub_nobody" } },
    });
    expect(await unknown.json()).toMatchObject({ applied: "ignored" });
  });
});
