import Stripe from "stripe";
import type { Charged, CheckoutInput, PaymentEvent, PaymentProvider, Product } from "@/core/ports/payments";

/** Stripe Checkout for packs (mode payment) and plans (mode subscription). */
export class StripeProvider implements PaymentProvider {
  readonly kind = "stripe" as const;
  private readonly stripe: Stripe;

  constructor(
    secretKey: string,
    private readonly webhookSecret: string,
    apiUrl?: string,
  ) {
    const api = apiUrl ? new URL(apiUrl) : null;
    this.stripe = new Stripe(secretKey, {
      maxNetworkRetries: 2,
      timeout: 20_000,
      ...(api
        ? {
            host: api.hostname,
            port: api.port ? Number(api.port) : undefined,
            protocol: api.protocol.replace(":", "") as "http" | "https",
          }
        : {}),
    });
  }

  async createCheckout(input: CheckoutInput) {
    const { product } = input;
    const metadata = { checkoutId: input.checkoutId, userId: input.userId, productId: productIdOf(product) };
    const session = await this.stripe.checkout.sessions.create({
      mode: product.kind === "pack" ? "payment" : "subscription",
      client_reference_id: input.checkoutId,
      // A returning customer keeps one Stripe customer (one portal, one card on file).
      ...(input.customerId ? { customer: input.customerId } : { customer_email: input.email }),
      metadata,
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: input.currency,
            unit_amount: product.kind === "pack" ? product.pack.priceCents : product.plan.priceCents,
            product_data: { name: product.kind === "pack" ? product.pack.name : product.plan.name },
            ...(product.kind === "plan" ? { recurring: { interval: "month" as const } } : {}),
          },
        },
      ],
      ...(product.kind === "plan" ? { subscription_data: { metadata } } : {}),
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
    });
    if (!session.url) throw new Error("Stripe returned a checkout session without a URL");
    return { url: session.url, providerSessionId: session.id };
  }

  /**
   * Cancels the subscription at once (DELETE /v1/subscriptions/:id): no further invoice and no
   * proration. Stripe answers 404 `resource_missing` for one already canceled: that is done too.
   */
  async cancelSubscription(subscriptionId: string): Promise<void> {
    try {
      await this.stripe.subscriptions.cancel(subscriptionId, {
        cancellation_details: { comment: "Account deleted by its owner" },
      });
    } catch (err) {
      if (err instanceof Stripe.errors.StripeError && err.code === "resource_missing") return;
      throw err;
    }
  }

  /**
   * Cancel at period end (true) or resume (false): POST /v1/subscriptions/:id. A cancellation
   * set as a date (`cancel_at`, as Stripe's portal may do) is cleared on resume too.
   */
  async setCancelAtPeriodEnd(subscriptionId: string, cancel: boolean) {
    let params: Stripe.SubscriptionUpdateParams = { cancel_at_period_end: cancel };
    if (!cancel) {
      const current = await this.stripe.subscriptions.retrieve(subscriptionId);
      if (!current.cancel_at_period_end && current.cancel_at) params = { cancel_at: "" };
    }
    const sub = await this.stripe.subscriptions.update(subscriptionId, params);
    return { cancelAtPeriodEnd: endsAtPeriodEnd(sub), status: subscriptionStatus(sub.status) };
  }

  /** Stripe's customer portal (POST /v1/billing_portal/sessions): its one-time URL. */
  async createPortalSession(customerId: string, returnUrl: string): Promise<string> {
    const session = await this.stripe.billingPortal.sessions.create({
      customer: customerId,
      return_url: returnUrl,
    });
    return session.url;
  }

  /**
   * Expires a Checkout Session still open (POST /v1/checkout/sessions/:id/expire) so it can
   * no longer be paid; one already complete is reported as such.
   */
  async closeCheckout(providerSessionId: string): Promise<"closed" | "completed"> {
    const session = await this.stripe.checkout.sessions.retrieve(providerSessionId);
    if (session.status === "complete") return "completed";
    if (session.status === "expired") return "closed";
    try {
      await this.stripe.checkout.sessions.expire(providerSessionId);
      return "closed";
    } catch (err) {
      // Completed between the two calls: Stripe refuses to expire it.
      const again = await this.stripe.checkout.sessions.retrieve(providerSessionId);
      if (again.status === "complete") return "completed";
      if (again.status === "expired") return "closed";
      throw err;
    }
  }

  /**
   * A duplicate subscription: cancel it now (no invoice, no proration) and refund each paid
   * invoice payment, one idempotency key per payment so a retry never refunds twice.
   */
  async refuseSubscription(subscriptionId: string): Promise<void> {
    try {
      await this.stripe.subscriptions.cancel(subscriptionId, {
        invoice_now: false,
        prorate: false,
        cancellation_details: { comment: "Duplicate subscription: the customer already has this plan" },
      });
    } catch (err) {
      if (!(err instanceof Stripe.errors.StripeError && err.code === "resource_missing")) throw err;
    }
    for await (const invoice of this.stripe.invoices.list({ subscription: subscriptionId, status: "paid" })) {
      if (!invoice.id) continue;
      for await (const payment of this.stripe.invoicePayments.list({ invoice: invoice.id, status: "paid" })) {
        const paymentIntent = idOf(payment.payment.payment_intent);
        const charge = idOf(payment.payment.charge);
        if (!paymentIntent && !charge) continue;
        try {
          await this.stripe.refunds.create(
            {
              ...(paymentIntent ? { payment_intent: paymentIntent } : { charge }),
              reason: "duplicate",
              metadata: { subscription: subscriptionId, invoice: invoice.id },
            },
            { idempotencyKey: `photofx-refund-duplicate-${payment.id}` },
          );
        } catch (err) {
          if (err instanceof Stripe.errors.StripeError && err.code === "charge_already_refunded") continue;
          throw err;
        }
      }
    }
  }

  /**
   * Verifies a webhook's signature and maps the events we act on. Throws on a bad
   * signature; returns null for event types we do not use.
   */
  parseWebhook(rawBody: string, signature: string): PaymentEvent | null {
    const event = this.stripe.webhooks.constructEvent(rawBody, signature, this.webhookSecret);
    return mapStripeEvent(event);
  }
}

/** Our status for Stripe's: null for one we do not act on (incomplete, paused). */
export function subscriptionStatus(
  status: Stripe.Subscription.Status,
): "active" | "past_due" | "canceled" | null {
  switch (status) {
    case "active":
    case "trialing":
      return "active";
    case "past_due":
    case "unpaid":
      return "past_due";
    case "canceled":
    case "incomplete_expired":
      return "canceled";
    default:
      return null;
  }
}

/** Set to end: cancel_at_period_end, or a cancellation date (Stripe's portal may set cancel_at). */
const endsAtPeriodEnd = (s: Pick<Stripe.Subscription, "cancel_at_period_end" | "cancel_at">) =>
  s.cancel_at_period_end || s.cancel_at !== null;

const productIdOf = (p: Product) => (p.kind === "pack" ? p.pack.id : p.plan.id);
const idOf = (v: string | { id: string } | null | undefined) => (typeof v === "string" ? v : v?.id);

/** What Stripe says it charged (minor unit, lower-case currency); undefined when it does not say. */
const chargedOf = (
  amount: number | null | undefined,
  currency: string | null | undefined,
): Charged | undefined =>
  typeof amount === "number" && Number.isInteger(amount) && amount >= 0 && currency
    ? { amount, currency: currency.toLowerCase() }
    : undefined;

export function mapStripeEvent(event: Stripe.Event): PaymentEvent | null {
  switch (event.type) {
    case "checkout.session.completed": {
      const s = event.data.object;
      const checkoutId = s.client_reference_id ?? s.metadata?.checkoutId;
      if (!checkoutId) return null;
      return {
        id: event.id,
        type: "checkout.completed",
        checkoutId,
        paid: s.payment_status === "paid" || s.payment_status === "no_payment_required",
        subscriptionId: idOf(s.subscription),
        customerId: idOf(s.customer),
        charged: chargedOf(s.amount_total, s.currency),
      };
    }
    case "checkout.session.async_payment_succeeded": {
      const s = event.data.object;
      const checkoutId = s.client_reference_id ?? s.metadata?.checkoutId;
      return checkoutId
        ? {
            id: event.id,
            type: "checkout.async_paid",
            checkoutId,
            charged: chargedOf(s.amount_total, s.currency),
          }
        : null;
    }
    case "invoice.paid": {
      const inv = event.data.object as Stripe.Invoice & {
        subscription?: string | { id: string } | null;
        subscription_details?: { metadata?: Record<string, string> | null } | null;
      };
      const details = inv.parent?.subscription_details;
      const subscriptionId = idOf(details?.subscription) ?? idOf(inv.subscription);
      if (!subscriptionId || !inv.id) return null;
      const metadata = details?.metadata ?? inv.subscription_details?.metadata ?? {};
      const periodEnd = inv.lines?.data?.[0]?.period?.end ?? inv.period_end;
      return {
        id: event.id,
        type: "invoice.paid",
        invoiceId: inv.id,
        subscriptionId,
        periodEnd: new Date(periodEnd * 1000),
        userId: metadata?.userId,
        planId: metadata?.productId,
        customerId: idOf(inv.customer),
        charged: chargedOf(inv.amount_paid, inv.currency),
      };
    }
    case "customer.subscription.updated": {
      const sub = event.data.object;
      return {
        id: event.id,
        type: "subscription.updated",
        subscriptionId: sub.id,
        status: subscriptionStatus(sub.status),
        cancelAtPeriodEnd: endsAtPeriodEnd({
          cancel_at_period_end: sub.cancel_at_period_end ?? false,
          cancel_at: sub.cancel_at ?? null,
        }),
        createdAt: new Date(event.created * 1000),
      };
    }
    case "customer.subscription.deleted":
      return { id: event.id, type: "subscription.deleted", subscriptionId: event.data.object.id };
    default:
      return null;
  }
}
