import type { PaymentProvider } from "@/core/ports/payments";

/**
 * The built-in test checkout: no payment service, no money. The browser goes to our own
 * page, clearly marked as test mode, whose Pay button completes the purchase through the
 * same fulfilment code as a Stripe webhook.
 */
export class TestCheckoutProvider implements PaymentProvider {
  readonly kind = "test" as const;
  async createCheckout(input: { checkoutId: string }) {
    return { url: `/checkout/test/${input.checkoutId}`, providerSessionId: null };
  }
}
