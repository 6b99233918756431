import type { Pack, Plan } from "@/config/pricing";

/**
 * The payments port: starting a checkout at a provider (Stripe, or the built-in test
 * checkout) and the provider's events, normalized, that src/core/billing.ts applies.
 */

export type Product = { kind: "pack"; pack: Pack } | { kind: "plan"; plan: Plan };

/** A payment provider's events, normalized. `id` is unique per provider event. */
export type PaymentEvent =
  | {
      id: string;
      type: "checkout.completed";
      checkoutId: string;
      paid: boolean;
      subscriptionId?: string;
      customerId?: string;
      periodEnd?: Date;
    }
  | { id: string; type: "checkout.async_paid"; checkoutId: string }
  | {
      id: string;
      type: "invoice.paid";
      invoiceId: string;
      subscriptionId: string;
      periodEnd: Date;
      /** From the subscription's metadata, for an invoice that arrives before its checkout. */
      userId?: string;
      planId?: string;
      customerId?: string;
    }
  | { id: string; type: "subscription.deleted"; subscriptionId: string };

export interface CheckoutInput {
  checkoutId: string;
  userId: string;
  email: string;
  product: Product;
  currency: string;
  successUrl: string;
  cancelUrl: string;
}

/** Starts checkouts at a provider (Stripe, or the built-in test checkout). */
export interface PaymentProvider {
  readonly kind: "test" | "stripe";
  createCheckout(input: CheckoutInput): Promise<{ url: string; providerSessionId: string | null }>;
}
