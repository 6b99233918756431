import http from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

/**
 * A local stand-in for Stripe's API, speaking its protocol: form-encoded request bodies
 * (nested keys as `a[b][c]`), a DELETE's parameters in the query string, JSON objects of
 * Stripe's shapes, `{ error: { type, code, message } }` errors, list objects, and the
 * Idempotency-Key header (a repeated key answers the first response). It keeps state, so a
 * test can play the customer's side (pay a Checkout Session, which creates the customer,
 * subscription, paid invoice and its payment, as Stripe does) and get the webhook events
 * Stripe would send, signed with the endpoint's secret.
 *
 * Endpoints: POST /v1/checkout/sessions, GET /v1/checkout/sessions/:id,
 * POST /v1/checkout/sessions/:id/expire, GET|POST|DELETE /v1/subscriptions/:id,
 * GET /v1/invoices, GET /v1/invoice_payments, POST /v1/refunds,
 * POST /v1/billing_portal/sessions.
 */

type Obj = Record<string, unknown>;

export interface FakeRequest {
  method: string;
  path: string;
  params: URLSearchParams;
  idempotencyKey: string | null;
}

interface Session {
  id: string;
  mode: "payment" | "subscription";
  status: "open" | "complete" | "expired";
  clientReferenceId: string | null;
  customer: string | null;
  customerEmail: string | null;
  metadata: Record<string, string>;
  subscriptionMetadata: Record<string, string>;
  amount: number;
  currency: string;
  successUrl: string;
  cancelUrl: string;
  subscription: string | null;
  invoice: string | null;
}

interface Subscription {
  id: string;
  customer: string;
  status: "active" | "canceled" | "past_due";
  cancelAtPeriodEnd: boolean;
  cancelAt: number | null;
  canceledAt: number | null;
  periodStart: number;
  periodEnd: number;
  metadata: Record<string, string>;
  amount: number;
  currency: string;
  latestInvoice: string | null;
  cancellationComment: string | null;
}

interface Invoice {
  id: string;
  subscription: string;
  customer: string;
  amount: number;
  currency: string;
  periodStart: number;
  periodEnd: number;
  paymentIntent: string;
}

const now = () => Math.floor(Date.now() / 1000);
const MONTH = 30 * 86400;

/** `prefix[key]=value` pairs of a form body as an object (Stripe's metadata encoding). */
function hashOf(params: URLSearchParams, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of params) {
    const m = new RegExp(`^${prefix.replace(/[[\]]/g, "\\$&")}\\[([^\\]]+)\\]$`).exec(k);
    if (m) out[m[1]!] = v;
  }
  return out;
}

export function stripeFake() {
  const requests: FakeRequest[] = [];
  const sessions = new Map<string, Session>();
  const subscriptions = new Map<string, Subscription>();
  const invoices = new Map<string, Invoice>();
  const refunds = new Map<string, Obj>();
  const refundedIntents = new Set<string>();
  const idempotent = new Map<string, { status: number; body: unknown }>();
  const failures: Array<{ method: string; path: RegExp; times: number }> = [];
  let seq = 0;
  const id = (prefix: string) => `${prefix}_test_${(++seq).toString().padStart(6, "0")}`;

  const sessionObject = (s: Session): Obj => ({
    id: s.id,
    object: "checkout.session",
    mode: s.mode,
    status: s.status,
    payment_status: s.status === "complete" ? "paid" : "unpaid",
    client_reference_id: s.clientReferenceId,
    customer: s.customer,
    customer_email: s.customerEmail,
    metadata: s.metadata,
    subscription: s.subscription,
    invoice: s.invoice,
    amount_total: s.amount,
    currency: s.currency,
    success_url: s.successUrl,
    cancel_url: s.cancelUrl,
    url: s.status === "open" ? `https://checkout.stripe.test/c/pay/${s.id}` : null,
    livemode: false,
    created: now(),
    expires_at: now() + 86400,
  });

  const subscriptionObject = (s: Subscription): Obj => ({
    id: s.id,
    object: "subscription",
    customer: s.customer,
    status: s.status,
    cancel_at_period_end: s.cancelAtPeriodEnd,
    cancel_at: s.cancelAt,
    canceled_at: s.canceledAt,
    ended_at: s.status === "canceled" ? s.canceledAt : null,
    cancellation_details: { comment: s.cancellationComment, feedback: null, reason: null },
    currency: s.currency,
    metadata: s.metadata,
    latest_invoice: s.latestInvoice,
    livemode: false,
    start_date: s.periodStart,
    items: {
      object: "list",
      has_more: false,
      url: `/v1/subscription_items?subscription=${s.id}`,
      data: [
        {
          id: `si_${s.id}`,
          object: "subscription_item",
          current_period_start: s.periodStart,
          current_period_end: s.periodEnd,
          quantity: 1,
          price: {
            object: "price",
            unit_amount: s.amount,
            currency: s.currency,
            recurring: { interval: "month" },
          },
        },
      ],
    },
  });

  const invoiceObject = (i: Invoice): Obj => {
    const sub = subscriptions.get(i.subscription);
    return {
      id: i.id,
      object: "invoice",
      customer: i.customer,
      status: "paid",
      amount_paid: i.amount,
      currency: i.currency,
      period_start: i.periodStart,
      period_end: i.periodEnd,
      parent: {
        type: "subscription_details",
        quote_details: null,
        subscription_details: { subscription: i.subscription, metadata: sub?.metadata ?? {} },
      },
      lines: {
        object: "list",
        has_more: false,
        url: `/v1/invoices/${i.id}/lines`,
        data: [{ object: "line_item", amount: i.amount, period: { start: i.periodStart, end: i.periodEnd } }],
      },
      livemode: false,
    };
  };

  const list = (url: string, data: Obj[]) => ({ object: "list", data, has_more: false, url });
  const notFound = (what: string, value: string) => ({
    error: {
      type: "invalid_request_error",
      code: "resource_missing",
      param: "id",
      message: `No such ${what}: '${value}'`,
    },
  });

  function handle(method: string, path: string, params: URLSearchParams): { status: number; body: unknown } {
    if (method === "POST" && path === "/v1/checkout/sessions") {
      const mode = params.get("mode") === "subscription" ? "subscription" : "payment";
      const s: Session = {
        id: id("cs"),
        mode,
        status: "open",
        clientReferenceId: params.get("client_reference_id"),
        customer: params.get("customer"),
        customerEmail: params.get("customer_email"),
        metadata: hashOf(params, "metadata"),
        subscriptionMetadata: hashOf(params, "subscription_data[metadata]"),
        amount: Number(params.get("line_items[0][price_data][unit_amount]") ?? 0),
        currency: params.get("line_items[0][price_data][currency]") ?? "usd",
        successUrl: params.get("success_url") ?? "",
        cancelUrl: params.get("cancel_url") ?? "",
        subscription: null,
        invoice: null,
      };
      sessions.set(s.id, s);
      return { status: 200, body: sessionObject(s) };
    }
    let m = /^\/v1\/checkout\/sessions\/([A-Za-z0-9_]+)(\/expire)?$/.exec(path);
    if (m) {
      const s = sessions.get(m[1]!);
      if (!s) return { status: 404, body: notFound("checkout.session", m[1]!) };
      if (method === "GET" && !m[2]) return { status: 200, body: sessionObject(s) };
      if (method === "POST" && m[2]) {
        if (s.status !== "open") {
          return {
            status: 400,
            body: {
              error: {
                type: "invalid_request_error",
                message: `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${s.status}".`,
              },
            },
          };
        }
        s.status = "expired";
        return { status: 200, body: sessionObject(s) };
      }
    }
    m = /^\/v1\/subscriptions\/([A-Za-z0-9_]+)$/.exec(path);
    if (m) {
      const s = subscriptions.get(m[1]!);
      if (!s || (method === "DELETE" && s.status === "canceled")) {
        return { status: 404, body: notFound("subscription", m[1]!) };
      }
      if (method === "GET") return { status: 200, body: subscriptionObject(s) };
      if (method === "POST") {
        if (s.status === "canceled") {
          return {
            status: 400,
            body: {
              error: {
                type: "invalid_request_error",
                message: "A canceled subscription can only update its cancellation_details and metadata.",
              },
            },
          };
        }
        if (params.has("cancel_at_period_end") && params.has("cancel_at")) {
          return {
            status: 400,
            body: {
              error: {
                type: "invalid_request_error",
                message: "You may only specify one of these parameters: cancel_at, cancel_at_period_end.",
              },
            },
          };
        }
        if (params.has("cancel_at_period_end")) {
          s.cancelAtPeriodEnd = params.get("cancel_at_period_end") === "true";
          // Stripe sets cancel_at to the period's end with it, and clears both on resume.
          s.cancelAt = s.cancelAtPeriodEnd ? s.periodEnd : null;
          s.canceledAt = s.cancelAtPeriodEnd ? now() : null;
        }
        if (params.has("cancel_at")) {
          const at = params.get("cancel_at");
          s.cancelAt = at ? Number(at) : null;
          s.cancelAtPeriodEnd = false;
          s.canceledAt = at ? now() : null;
        }
        return { status: 200, body: subscriptionObject(s) };
      }
      if (method === "DELETE") {
        s.status = "canceled";
        s.canceledAt = now();
        s.cancelAtPeriodEnd = false;
        s.cancellationComment = params.get("cancellation_details[comment]");
        return { status: 200, body: subscriptionObject(s) };
      }
    }
    if (method === "GET" && path === "/v1/invoices") {
      const sub = params.get("subscription");
      const data = [...invoices.values()]
        .filter((i) => !sub || i.subscription === sub)
        // Every invoice here is paid.
        .filter(() => !params.get("status") || params.get("status") === "paid")
        .map(invoiceObject);
      return { status: 200, body: list("/v1/invoices", data) };
    }
    if (method === "GET" && path === "/v1/invoice_payments") {
      const inv = invoices.get(params.get("invoice") ?? "");
      const data = inv
        ? [
            {
              id: `inpay_${inv.id}`,
              object: "invoice_payment",
              invoice: inv.id,
              is_default: true,
              status: "paid",
              amount_paid: inv.amount,
              amount_requested: inv.amount,
              currency: inv.currency,
              payment: { type: "payment_intent", payment_intent: inv.paymentIntent },
              status_transitions: { paid_at: inv.periodStart, canceled_at: null },
              livemode: false,
            },
          ]
        : [];
      return { status: 200, body: list("/v1/invoice_payments", data) };
    }
    if (method === "POST" && path === "/v1/refunds") {
      const pi = params.get("payment_intent");
      const inv = [...invoices.values()].find((i) => i.paymentIntent === pi);
      if (!pi || !inv) return { status: 404, body: notFound("payment_intent", pi ?? "") };
      if (refundedIntents.has(pi)) {
        return {
          status: 400,
          body: {
            error: {
              type: "invalid_request_error",
              code: "charge_already_refunded",
              message: `Charge for ${pi} has already been refunded.`,
            },
          },
        };
      }
      refundedIntents.add(pi);
      const refund = {
        id: id("re"),
        object: "refund",
        amount: inv.amount,
        currency: inv.currency,
        payment_intent: pi,
        reason: params.get("reason"),
        metadata: hashOf(params, "metadata"),
        status: "succeeded",
        created: now(),
      };
      refunds.set(refund.id, refund);
      return { status: 200, body: refund };
    }
    if (method === "POST" && path === "/v1/billing_portal/sessions") {
      const customer = params.get("customer");
      if (!customer || ![...subscriptions.values()].some((s) => s.customer === customer)) {
        return { status: 404, body: notFound("customer", customer ?? "") };
      }
      const portalId = id("bps");
      return {
        status: 200,
        body: {
          id: portalId,
          object: "billing_portal.session",
          configuration: "bpc_test_default",
          created: now(),
          customer,
          livemode: false,
          locale: null,
          on_behalf_of: null,
          return_url: params.get("return_url"),
          url: `https://billing.stripe.test/p/session/${portalId}`,
        },
      };
    }
    return {
      status: 404,
      body: {
        error: { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` },
      },
    };
  }

  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://stripe.test");
      const method = req.method ?? "GET";
      const params = new URLSearchParams(method === "POST" ? raw : url.search);
      const key = (req.headers["idempotency-key"] as string | undefined) ?? null;
      requests.push({ method, path: url.pathname, params, idempotencyKey: key });
      const send = (status: number, body: unknown, extra: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", "request-id": `req_${++seq}`, ...extra });
        res.end(JSON.stringify(body));
      };
      const failure = failures.find((f) => f.times > 0 && f.method === method && f.path.test(url.pathname));
      if (failure) {
        failure.times--;
        // Stripe-Should-Retry: false keeps the client from retrying on its own.
        return send(
          500,
          { error: { type: "api_error", message: "Something went wrong on Stripe's end." } },
          { "stripe-should-retry": "false" },
        );
      }
      const scoped = key ? `${method} ${url.pathname} ${key}` : null;
      const replay = scoped ? idempotent.get(scoped) : undefined;
      if (replay) return send(replay.status, replay.body, { "idempotent-replayed": "true" });
      const out = handle(method, url.pathname, params);
      if (scoped && out.status < 500) idempotent.set(scoped, out);
      send(out.status, out.body);
    });
  });

  const event = (type: string, object: Obj) => ({
    id: id("evt"),
    object: "event",
    api_version: "2026-10-28.endive",
    created: now(),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  });

  return {
    requests,
    sessions,
    subscriptions,
    refunds,
    async listen(): Promise<string> {
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
    /** The next `times` requests matching fail with a 500 Stripe does not ask to retry. */
    fail(method: string, path: RegExp, times = 1) {
      failures.push({ method, path, times });
    },
    /**
     * The customer pays an open Checkout Session: as Stripe, this creates the customer (if
     * none), and in subscription mode the subscription and its first invoice, paid. Returns
     * the events Stripe sends: checkout.session.completed and, for a subscription,
     * invoice.paid.
     */
    pay(sessionId: string): { completed: Obj; invoicePaid: Obj | null; subscriptionId: string | null } {
      const s = sessions.get(sessionId);
      if (!s || s.status !== "open") throw new Error(`session ${sessionId} is not open (${s?.status})`);
      s.status = "complete";
      s.customer ??= id("cus");
      if (s.mode === "payment")
        return {
          completed: event("checkout.session.completed", sessionObject(s)),
          invoicePaid: null,
          subscriptionId: null,
        };
      const start = now();
      const sub: Subscription = {
        id: id("sub"),
        customer: s.customer,
        status: "active",
        cancelAtPeriodEnd: false,
        cancelAt: null,
        canceledAt: null,
        periodStart: start,
        periodEnd: start + MONTH,
        metadata: s.subscriptionMetadata,
        amount: s.amount,
        currency: s.currency,
        latestInvoice: null,
        cancellationComment: null,
      };
      const inv: Invoice = {
        id: id("in"),
        subscription: sub.id,
        customer: s.customer,
        amount: s.amount,
        currency: s.currency,
        periodStart: start,
        periodEnd: start + MONTH,
        paymentIntent: id("pi"),
      };
      sub.latestInvoice = inv.id;
      subscriptions.set(sub.id, sub);
      invoices.set(inv.id, inv);
      s.subscription = sub.id;
      s.invoice = inv.id;
      return {
        completed: event("checkout.session.completed", sessionObject(s)),
        invoicePaid: event("invoice.paid", invoiceObject(inv)),
        subscriptionId: sub.id,
      };
    },
    /** A customer.subscription.* event with the subscription as it is now. */
    subscriptionEvent(
      type: "customer.subscription.updated" | "customer.subscription.deleted",
      subId: string,
    ) {
      const s = subscriptions.get(subId);
      if (!s) throw new Error(`no subscription ${subId}`);
      return event(type, subscriptionObject(s));
    },
    /** Stripe's side of a change made elsewhere (its dashboard, the customer portal). */
    updateSubscription(
      subId: string,
      change: Partial<Pick<Subscription, "cancelAtPeriodEnd" | "cancelAt" | "status">>,
    ) {
      const s = subscriptions.get(subId);
      if (!s) throw new Error(`no subscription ${subId}`);
      Object.assign(s, change);
    },
  };
}

/** Delivers an event to our webhook endpoint signed as Stripe signs it (Stripe-Signature). */
export function deliverStripeEvent(appUrl: string, secret: string, event: object): Promise<Response> {
  const payload = JSON.stringify(event);
  const header = new Stripe("sk_test_signer").webhooks.generateTestHeaderString({ payload, secret });
  return fetch(`${appUrl}/api/webhooks/stripe`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": header },
    body: payload,
  });
}
