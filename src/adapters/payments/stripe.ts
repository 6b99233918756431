import Stripe from "stripe";
import type { CheckoutInput, PaymentEvent, PaymentProvider, Product } from "@/core/ports/payments";

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
      customer_email: input.email,
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
   * Verifies a webhook's signature and maps the events we act on. Throws on a bad
   * signature; returns null for event types we do not use.
   */
  parseWebhook(rawBody: string, signature: string): PaymentEvent | null {
    const event = this.stripe.webhooks.constructEvent(rawBody, signature, this.webhookSecret);
    return mapStripeEvent(event);
  }
}

const productIdOf = (p: Product) => (p.kind === "pack" ? p.pack.id : p.plan.id);
const idOf = (v: string | { id: string } | null | undefined) => (typeof v === "string" ? v : v?.id);

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
      };
    }
    case "checkout.session.async_payment_succeeded": {
      const s = event.data.object;
      const checkoutId = s.client_reference_id ?? s.metadata?.checkoutId;
      return checkoutId ? { id: event.id, type: "checkout.async_paid", checkoutId } : null;
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
      };
    }
    case "customer.subscription.deleted":
      return { id: event.id, type: "subscription.deleted", subscriptionId: event.data.object.id };
    default:
      return null;
  }
}
