import { and, eq } from "drizzle-orm";
import type { Pricing } from "@/config/pricing";
import type { Db, Tx } from "./db";
import type { PaymentEvent, PaymentProvider, Product } from "./ports/payments";
import { checkoutSession, paymentEvent, subscription } from "./schema";
import { addCreditsTx } from "./credits";
import { AppError } from "./errors";
import { newId } from "./ids";

/**
 * Purchases: credit packs (one-time) and plans (monthly credits and the higher cap). Every
 * payment reaches the ledger through applyPaymentEvent, whether it came from a verified
 * Stripe webhook or from the built-in test checkout; each event id applies once.
 */

export function findProduct(pricing: Pricing, productId: string): Product | null {
  const pack = pricing.packs.find((p) => p.id === productId);
  if (pack) return { kind: "pack", pack };
  const plan = pricing.plans.find((p) => p.id === productId);
  return plan ? { kind: "plan", plan } : null;
}

export interface BillingDeps {
  db: Db;
  pricing: Pricing;
  payments: PaymentProvider;
  appUrl: string;
  /** TEST_CHECKOUT: without Stripe, whether the built-in test checkout may be used. */
  testCheckout: boolean;
}

/**
 * How this server takes purchases: Stripe, the built-in test checkout (only when the
 * operator asked for it, TEST_CHECKOUT=true), or not at all.
 */
export type CheckoutMode = "stripe" | "test" | "none";

export function checkoutMode(deps: Pick<BillingDeps, "payments" | "testCheckout">): CheckoutMode {
  if (deps.payments.kind === "stripe") return "stripe";
  return deps.testCheckout ? "test" : "none";
}

/** Neither Stripe nor the test checkout: a purchase is refused before anything is written. */
export function purchasesNotConfigured(): AppError {
  return new AppError(
    "UNAVAILABLE",
    "Purchases are not set up on this server.",
    { checkout: "none" },
    { key: "purchasesNotConfigured" },
  );
}

/** Creates a checkout for a pack or plan and returns where to send the browser. */
export async function startCheckout(
  deps: BillingDeps,
  user: { id: string; email: string },
  productId: string,
): Promise<{ url: string; checkoutId: string }> {
  if (checkoutMode(deps) === "none") throw purchasesNotConfigured();
  const product = findProduct(deps.pricing, productId);
  if (!product) throw new AppError("VALIDATION", `Unknown product "${productId}"`);
  const checkoutId = newId();
  await deps.db.insert(checkoutSession).values({
    id: checkoutId,
    userId: user.id,
    productId,
    kind: product.kind,
    provider: deps.payments.kind,
  });
  const { url, providerSessionId } = await deps.payments.createCheckout({
    checkoutId,
    userId: user.id,
    email: user.email,
    product,
    currency: deps.pricing.currency,
    successUrl: `${deps.appUrl}/checkout/success?checkout=${checkoutId}`,
    cancelUrl: `${deps.appUrl}/checkout/cancel?checkout=${checkoutId}`,
  });
  if (providerSessionId) {
    await deps.db
      .update(checkoutSession)
      .set({ providerSessionId })
      .where(eq(checkoutSession.id, checkoutId));
  }
  return { url, checkoutId };
}

const MONTH_MS = 31 * 24 * 3600 * 1000;

/** Makes the user's subscription active until `periodEnd` (one row per user). */
async function activateSubscription(
  tx: Tx,
  s: {
    userId: string;
    planId: string;
    periodEnd: Date;
    provider: string;
    customerId: string | null;
    subscriptionId: string | null;
  },
): Promise<void> {
  const values = {
    userId: s.userId,
    planId: s.planId,
    status: "active",
    currentPeriodEnd: s.periodEnd,
    provider: s.provider,
    providerCustomerId: s.customerId,
    providerSubscriptionId: s.subscriptionId,
    updatedAt: new Date(),
  };
  await tx
    .insert(subscription)
    .values(values)
    .onConflictDoUpdate({ target: subscription.userId, set: values });
}

/**
 * Applies one payment event in one transaction: records its id (a second delivery is a
 * "duplicate" and changes nothing), then grants credits or updates the subscription.
 * Throws (so the provider retries later) when the event cannot be placed yet.
 */
export async function applyPaymentEvent(
  deps: Pick<BillingDeps, "db" | "pricing">,
  event: PaymentEvent,
  provider: "test" | "stripe",
): Promise<"applied" | "duplicate" | "ignored"> {
  return deps.db.transaction(async (tx) => {
    const fresh = await tx
      .insert(paymentEvent)
      .values({ id: `${provider}:${event.id}`, type: event.type })
      .onConflictDoNothing()
      .returning({ id: paymentEvent.id });
    if (fresh.length === 0) return "duplicate";

    if (event.type === "checkout.completed" || event.type === "checkout.async_paid") {
      const [checkout] = await tx
        .select()
        .from(checkoutSession)
        .where(eq(checkoutSession.id, event.checkoutId));
      if (!checkout) return "ignored";
      const product = findProduct(deps.pricing, checkout.productId);
      if (!product) return "ignored";
      await tx
        .update(checkoutSession)
        .set({ status: "completed", completedAt: new Date() })
        .where(eq(checkoutSession.id, checkout.id));
      const paid = event.type === "checkout.async_paid" || event.paid;
      if (product.kind === "pack" && paid) {
        // One key per checkout: "completed and paid" and "async payment succeeded" grant once.
        await addCreditsTx(tx, {
          userId: checkout.userId,
          amount: product.pack.credits,
          kind: "purchase",
          key: `purchase:${checkout.id}`,
          note: `${product.pack.name} pack`,
        });
      }
      if (product.kind === "plan" && event.type === "checkout.completed") {
        // The plan's credits come with each paid invoice; here the subscription starts.
        await activateSubscription(tx, {
          userId: checkout.userId,
          planId: product.plan.id,
          periodEnd: event.periodEnd ?? new Date(Date.now() + MONTH_MS),
          provider,
          customerId: event.customerId ?? null,
          subscriptionId: event.subscriptionId ?? null,
        });
      }
      return "applied";
    }

    if (event.type === "invoice.paid") {
      const [existing] = await tx
        .select()
        .from(subscription)
        .where(eq(subscription.providerSubscriptionId, event.subscriptionId));
      const userId = existing?.userId ?? event.userId;
      const planId = existing?.planId ?? event.planId;
      const plan = deps.pricing.plans.find((p) => p.id === planId);
      if (!userId || !plan) {
        throw new Error(`invoice ${event.invoiceId}: subscription ${event.subscriptionId} is not known yet`);
      }
      await addCreditsTx(tx, {
        userId,
        amount: plan.monthlyCredits,
        kind: "purchase",
        key: `plan-credits:${event.invoiceId}`,
        note: `${plan.name} plan, monthly credits`,
      });
      await activateSubscription(tx, {
        userId,
        planId: plan.id,
        periodEnd: event.periodEnd,
        provider,
        customerId: event.customerId ?? existing?.providerCustomerId ?? null,
        subscriptionId: event.subscriptionId,
      });
      return "applied";
    }

    // subscription.deleted: canceled now, but the paid period keeps its cap until it ends.
    const updated = await tx
      .update(subscription)
      .set({ status: "canceled", updatedAt: new Date() })
      .where(eq(subscription.providerSubscriptionId, event.subscriptionId))
      .returning({ userId: subscription.userId });
    return updated.length ? "applied" : "ignored";
  });
}

/** The owner's view of a checkout, for the success and cancel pages. */
export async function getCheckout(db: Db, userId: string, checkoutId: string) {
  const [row] = await db
    .select({
      id: checkoutSession.id,
      productId: checkoutSession.productId,
      kind: checkoutSession.kind,
      status: checkoutSession.status,
      provider: checkoutSession.provider,
    })
    .from(checkoutSession)
    .where(and(eq(checkoutSession.id, checkoutId), eq(checkoutSession.userId, userId)));
  return row ?? null;
}

/**
 * The built-in test checkout's "Pay" button: emits what Stripe would send (checkout
 * completed and, for a plan, its first invoice paid) through applyPaymentEvent, the same
 * fulfilment path as real webhooks. Pressing it twice changes nothing more. Refused unless
 * the test checkout is on (TEST_CHECKOUT=true, no Stripe).
 */
export async function completeTestCheckout(
  deps: Pick<BillingDeps, "db" | "pricing" | "payments" | "testCheckout">,
  userId: string,
  checkoutId: string,
): Promise<void> {
  const mode = checkoutMode(deps);
  if (mode === "none") throw purchasesNotConfigured();
  if (mode !== "test") throw new AppError("NOT_FOUND", "Checkout not found");
  const checkout = await getCheckout(deps.db, userId, checkoutId);
  if (!checkout || checkout.provider !== "test") throw new AppError("NOT_FOUND", "Checkout not found");
  if (checkout.status === "canceled") throw new AppError("CONFLICT", "This checkout was canceled.");
  const subscriptionId = `test_sub_${checkoutId}`;
  const periodEnd = new Date(Date.now() + MONTH_MS);
  await applyPaymentEvent(
    deps,
    {
      id: `${checkoutId}:completed`,
      type: "checkout.completed",
      checkoutId,
      paid: true,
      subscriptionId,
      periodEnd,
    },
    "test",
  );
  if (checkout.kind === "plan") {
    await applyPaymentEvent(
      deps,
      {
        id: `${checkoutId}:invoice-1`,
        type: "invoice.paid",
        invoiceId: `test_in_${checkoutId}_1`,
        subscriptionId,
        periodEnd,
      },
      "test",
    );
  }
}

export async function cancelTestCheckout(db: Db, userId: string, checkoutId: string): Promise<void> {
  await db
    .update(checkoutSession)
    .set({ status: "canceled" })
    .where(
      and(
        eq(checkoutSession.id, checkoutId),
        eq(checkoutSession.userId, userId),
        eq(checkoutSession.status, "open"),
      ),
    );
}
