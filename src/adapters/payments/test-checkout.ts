import type { Env } from "@/config/env";
import type { PaymentProvider } from "@/core/ports/payments";

/**
 * The built-in test checkout: no payment service, no money. The browser goes to our own
 * page, clearly marked as test mode, whose Pay button completes the purchase through the
 * same fulfilment code as a Stripe webhook. It is offered only when the operator asks for
 * it (TEST_CHECKOUT=true); src/core/billing.ts refuses purchases otherwise.
 */
export class TestCheckoutProvider implements PaymentProvider {
  readonly kind = "test" as const;
  async createCheckout(input: { checkoutId: string }) {
    return { url: `/checkout/test/${input.checkoutId}`, providerSessionId: null };
  }
  /** A test subscription lives only in our database (billing marks it canceled): nothing to call. */
  async cancelSubscription(): Promise<void> {}
  /** Test subscriptions are cancelled and resumed in our database alone (src/core/billing.ts). */
  async setCancelAtPeriodEnd(_subscriptionId: string, cancel: boolean) {
    return { cancelAtPeriodEnd: cancel, status: "active" as const };
  }
  async createPortalSession(): Promise<string> {
    throw new Error("The test checkout has no billing portal");
  }
  /** Test checkouts live only in our database: nothing open elsewhere. */
  async closeCheckout(): Promise<"closed"> {
    return "closed";
  }
  /** A refused test subscription took no money: nothing to cancel or refund. */
  async refuseSubscription(): Promise<void> {}
}

/**
 * How this configuration takes purchases, for pages that have the environment but not the
 * services: Stripe when both its keys are set (as createServices decides), else the test
 * checkout when TEST_CHECKOUT is true, else none.
 */
export function checkoutModeOf(
  env: Pick<Env, "STRIPE_SECRET_KEY" | "STRIPE_WEBHOOK_SECRET" | "TEST_CHECKOUT">,
): "stripe" | "test" | "none" {
  if (env.STRIPE_SECRET_KEY && env.STRIPE_WEBHOOK_SECRET) return "stripe";
  return env.TEST_CHECKOUT ? "test" : "none";
}
