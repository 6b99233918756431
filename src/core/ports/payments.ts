import type { Pack, Plan } from "@/config/pricing";

/**
 * The payments port: starting a checkout at a provider (Stripe, or the built-in test
 * checkout) and the provider's events, normalized, that src/core/billing.ts applies.
 */

export type Product = { kind: "pack"; pack: Pack } | { kind: "plan"; plan: Plan };

/**
 * What the provider charged, as it reports it: the amount in the currency's minor unit
 * (Stripe's amount_total / amount_paid) and the currency (ISO 4217, lower case). Recorded as
 * the payment's revenue (ADR 018); absent when the provider did not say.
 */
export interface Charged {
  amount: number;
  currency: string;
}

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
      /** A pack's payment (a plan's is its invoice's). */
      charged?: Charged;
    }
  | { id: string; type: "checkout.async_paid"; checkoutId: string; charged?: Charged }
  | {
      id: string;
      type: "invoice.paid";
      invoiceId: string;
      subscriptionId: string;
      periodEnd: Date;
      charged?: Charged;
      /** From the subscription's metadata, for an invoice that arrives before its checkout. */
      userId?: string;
      planId?: string;
      customerId?: string;
    }
  | { id: string; type: "subscription.deleted"; subscriptionId: string }
  | {
      id: string;
      type: "subscription.updated";
      subscriptionId: string;
      /** Our status for the provider's (null: one we do not track, e.g. still incomplete). */
      status: "active" | "past_due" | "canceled" | null;
      /** Set to end at the period's end (Stripe: cancel_at_period_end, or a cancel_at). */
      cancelAtPeriodEnd: boolean;
      /** When the provider sent it (events may arrive out of order). */
      createdAt: Date;
    };

export interface CheckoutInput {
  checkoutId: string;
  userId: string;
  email: string;
  product: Product;
  currency: string;
  successUrl: string;
  cancelUrl: string;
  /** The user's customer at this provider from an earlier purchase, to reuse. */
  customerId?: string;
}

/** Starts checkouts at a provider (Stripe, or the built-in test checkout). */
export interface PaymentProvider {
  readonly kind: "test" | "stripe";
  createCheckout(input: CheckoutInput): Promise<{ url: string; providerSessionId: string | null }>;
  /**
   * Ends a subscription at the provider now (no further invoice), for a deleted account.
   * A subscription the provider no longer has (already canceled) is not an error.
   */
  cancelSubscription(subscriptionId: string): Promise<void>;
  /**
   * Cancels at the end of the paid period (true) or resumes (false) at the provider, and
   * answers the provider's state after the change.
   */
  setCancelAtPeriodEnd(
    subscriptionId: string,
    cancel: boolean,
  ): Promise<{ cancelAtPeriodEnd: boolean; status: "active" | "past_due" | "canceled" | null }>;
  /** A one-time link to the provider's billing portal for this customer (Stripe's customer portal). */
  createPortalSession(customerId: string, returnUrl: string): Promise<string>;
  /**
   * Closes a checkout still open at the provider so it can no longer be paid: "closed" when it
   * is (or already was) closed unpaid, "completed" when it was already paid.
   */
  closeCheckout(providerSessionId: string): Promise<"closed" | "completed">;
  /**
   * A second subscription to a plan the customer already has: cancel it now (no further
   * invoice) and refund every payment it took. Idempotent; throws when the provider cannot.
   */
  refuseSubscription(subscriptionId: string): Promise<void>;
}
