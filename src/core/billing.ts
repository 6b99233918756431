import { and, eq, gt, isNull, lte, ne, or, sql } from "drizzle-orm";
import type { Pricing, Plan } from "@/config/pricing";
import type { Db, Tx } from "./db";
import type { Charged, PaymentEvent, PaymentProvider, Product } from "./ports/payments";
import {
  checkoutSession,
  payment,
  paymentEvent,
  refusedSubscription,
  subscription,
  user as userTable,
} from "./schema";
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
  let customerId: string | undefined;
  if (product.kind === "plan") {
    const current = await currentSubscription(deps.db, user.id);
    refuseSecondSubscription(deps.pricing, current, product.plan);
    if (current?.provider === deps.payments.kind && current.providerCustomerId) {
      customerId = current.providerCustomerId;
    }
    await closeOpenPlanCheckouts(deps, user.id);
  }
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
    ...(customerId ? { customerId } : {}),
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

type SubscriptionRow = typeof subscription.$inferSelect;

async function currentSubscription(db: Db | Tx, userId: string): Promise<SubscriptionRow | null> {
  const [row] = await db.select().from(subscription).where(eq(subscription.userId, userId));
  return row ?? null;
}

/** In its paid period: the plan applies now (whatever its status, as getPlanStatus decides). */
const isLive = (row: SubscriptionRow | null, now = new Date()): row is SubscriptionRow =>
  !!row && row.currentPeriodEnd > now;

/** Live and set to renew: neither cancelled at period end nor ended at the provider. */
const isRenewing = (row: SubscriptionRow | null, now = new Date()) =>
  isLive(row, now) && row.status !== "canceled" && !row.cancelAtPeriodEnd;

const planName = (pricing: Pricing, planId: string) =>
  pricing.plans.find((p) => p.id === planId)?.name ?? planId;

/**
 * One plan at a time: while a plan's paid period runs it is not sold again (a cancelled one is
 * resumed instead), and another plan is sold only once the current one is set to end (it
 * then starts at once; the old one does not renew). Refused before anything is written.
 */
function refuseSecondSubscription(pricing: Pricing, current: SubscriptionRow | null, plan: Plan): void {
  if (!isLive(current)) return;
  const name = planName(pricing, current.planId);
  const details = { planId: current.planId, periodEnd: current.currentPeriodEnd.toISOString() };
  if (current.planId === plan.id) {
    const resumable = current.cancelAtPeriodEnd && current.status !== "canceled";
    throw new AppError(
      "ALREADY_SUBSCRIBED",
      resumable
        ? `You already have the ${name} plan until the end of its period. To keep it, resume it on your account page. Nothing was charged.`
        : `You already have the ${name} plan. Nothing was charged.`,
      details,
      { key: resumable ? "alreadySubscribedResume" : "alreadySubscribed", values: { plan: name } },
    );
  }
  if (isRenewing(current)) {
    throw new AppError(
      "ALREADY_SUBSCRIBED",
      `You already have the ${name} plan. To change plans, cancel it on your account page first. Nothing was charged.`,
      details,
      { key: "switchPlanCancelFirst", values: { plan: name } },
    );
  }
}

/**
 * Before a new plan checkout, the user's other plan checkouts still open at the provider are
 * closed there (Stripe: expired), so two tabs cannot both pay for a plan. One already paid
 * but not yet fulfilled (its webhook is on the way) refuses the new checkout.
 */
async function closeOpenPlanCheckouts(
  deps: Pick<BillingDeps, "db" | "payments">,
  userId: string,
): Promise<void> {
  const open = await deps.db
    .select({ id: checkoutSession.id, providerSessionId: checkoutSession.providerSessionId })
    .from(checkoutSession)
    .where(
      and(
        eq(checkoutSession.userId, userId),
        eq(checkoutSession.kind, "plan"),
        eq(checkoutSession.status, "open"),
        eq(checkoutSession.provider, deps.payments.kind),
        gt(checkoutSession.createdAt, new Date(Date.now() - 2 * 24 * 3600 * 1000)),
      ),
    );
  for (const c of open) {
    if (!c.providerSessionId) continue;
    let outcome: "closed" | "completed";
    try {
      outcome = await deps.payments.closeCheckout(c.providerSessionId);
    } catch {
      throw billingUnavailable();
    }
    if (outcome === "completed") {
      throw new AppError(
        "ALREADY_SUBSCRIBED",
        "Your earlier subscription checkout was paid and is being completed. Please wait a minute and reload the page. Nothing was charged.",
        {},
        { key: "subscriptionPending" },
      );
    }
    await deps.db
      .update(checkoutSession)
      .set({ status: "canceled" })
      .where(and(eq(checkoutSession.id, c.id), eq(checkoutSession.status, "open")));
  }
}

function billingUnavailable(): AppError {
  return new AppError(
    "UNAVAILABLE",
    "The payment service could not be reached. Nothing was changed. Please try again in a few minutes.",
    {},
    { key: "billingUnavailable" },
  );
}

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
  // Another subscription replacing the row starts renewing, with no provider event seen yet;
  // the same one keeps its cancellation (a paid invoice does not undo it).
  const replaced = sql`${subscription.providerSubscriptionId} is distinct from ${s.subscriptionId}`;
  await tx
    .insert(subscription)
    .values(values)
    .onConflictDoUpdate({
      target: subscription.userId,
      set: {
        ...values,
        cancelAtPeriodEnd: sql`case when ${replaced} then false else ${subscription.cancelAtPeriodEnd} end`,
        providerEventAt: sql`case when ${replaced} then null else ${subscription.providerEventAt} end`,
      },
    });
}

/**
 * A plan event of another subscription than the user's live one to the same plan (two
 * checkouts raced): recorded as refused (the provider is asked to cancel and refund it,
 * settlePendingRefusals) and not applied. Runs under a lock on the user's row, so two such
 * events for one user are decided one after the other.
 */
async function refuseIfDuplicate(
  tx: Tx,
  e: { userId: string; planId: string; provider: string; subscriptionId: string | null; checkoutId?: string },
): Promise<boolean> {
  await tx.select({ id: userTable.id }).from(userTable).where(eq(userTable.id, e.userId)).for("update");
  const refusalId = e.subscriptionId ? `${e.provider}:${e.subscriptionId}` : null;
  let refused = false;
  if (refusalId) {
    const [already] = await tx
      .select({ id: refusedSubscription.id })
      .from(refusedSubscription)
      .where(eq(refusedSubscription.id, refusalId));
    refused = !!already;
  }
  if (!refused) {
    const current = await currentSubscription(tx, e.userId);
    refused =
      isLive(current) &&
      current.planId === e.planId &&
      current.providerSubscriptionId !== (e.subscriptionId ?? null);
  }
  if (!refused) return false;
  if (refusalId && e.subscriptionId) {
    // Each refused event (a later invoice too) settles again: refunds are idempotent.
    await tx
      .insert(refusedSubscription)
      .values({
        id: refusalId,
        userId: e.userId,
        planId: e.planId,
        provider: e.provider,
        providerSubscriptionId: e.subscriptionId,
        checkoutId: e.checkoutId ?? null,
      })
      .onConflictDoUpdate({ target: refusedSubscription.id, set: { settledAt: null } });
  }
  if (e.checkoutId) {
    await tx
      .update(checkoutSession)
      .set({ status: "refused", completedAt: new Date() })
      .where(eq(checkoutSession.id, e.checkoutId));
  }
  return true;
}

/**
 * Records the money a fulfilled payment brought, as the provider charged it, under the key of
 * the ledger entry it paid for (so a payment is recorded once, like its credits). Without an
 * amount from the provider nothing is recorded: the console counts such a purchase as
 * "amount not recorded" rather than guessing it from today's prices (ADR 018).
 */
async function recordPayment(
  tx: Tx,
  p: {
    key: string;
    provider: "test" | "stripe";
    productId: string;
    kind: "pack" | "plan";
    charged?: Charged;
  },
): Promise<void> {
  if (!p.charged) return;
  await tx
    .insert(payment)
    .values({
      id: p.key,
      provider: p.provider,
      productId: p.productId,
      kind: p.kind,
      amount: p.charged.amount,
      currency: p.charged.currency.toLowerCase(),
    })
    .onConflictDoNothing();
}

export type ApplyResult = "applied" | "duplicate" | "ignored" | "refused";

/**
 * Applies one payment event in one transaction: records its id (a second delivery is a
 * "duplicate" and changes nothing), then grants credits or updates the subscription. A
 * second subscription to a plan the user already has is "refused": nothing granted or
 * extended, and it waits in refused_subscription for settlePendingRefusals.
 * Throws (so the provider retries later) when the event cannot be placed yet.
 */
export async function applyPaymentEvent(
  deps: Pick<BillingDeps, "db" | "pricing">,
  event: PaymentEvent,
  provider: "test" | "stripe",
): Promise<ApplyResult> {
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
      if (product.kind === "plan" && event.type === "checkout.completed") {
        const duplicate = await refuseIfDuplicate(tx, {
          userId: checkout.userId,
          planId: product.plan.id,
          provider,
          subscriptionId: event.subscriptionId ?? null,
          checkoutId: checkout.id,
        });
        if (duplicate) return "refused";
      }
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
        await recordPayment(tx, {
          key: `purchase:${checkout.id}`,
          provider,
          productId: product.pack.id,
          kind: "pack",
          charged: event.charged,
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
      const [refusal] = existing
        ? []
        : await tx
            .select()
            .from(refusedSubscription)
            .where(eq(refusedSubscription.id, `${provider}:${event.subscriptionId}`));
      const userId = existing?.userId ?? refusal?.userId ?? event.userId;
      const planId = existing?.planId ?? refusal?.planId ?? event.planId;
      const plan = deps.pricing.plans.find((p) => p.id === planId);
      if (!userId || !plan) {
        throw new Error(`invoice ${event.invoiceId}: subscription ${event.subscriptionId} is not known yet`);
      }
      if (!existing) {
        const duplicate = await refuseIfDuplicate(tx, {
          userId,
          planId: plan.id,
          provider,
          subscriptionId: event.subscriptionId,
        });
        if (duplicate) return "refused";
      }
      await addCreditsTx(tx, {
        userId,
        amount: plan.monthlyCredits,
        kind: "purchase",
        key: `plan-credits:${event.invoiceId}`,
        note: `${plan.name} plan, monthly credits`,
      });
      // A plan's money is its invoices' (the first one included), never its checkout's.
      await recordPayment(tx, {
        key: `plan-credits:${event.invoiceId}`,
        provider,
        productId: plan.id,
        kind: "plan",
        charged: event.charged,
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

    if (event.type === "subscription.updated") {
      // Only the row's own subscription, and never an older state over a newer one.
      const updated = await tx
        .update(subscription)
        .set({
          cancelAtPeriodEnd: event.cancelAtPeriodEnd,
          ...(event.status ? { status: event.status } : {}),
          providerEventAt: event.createdAt,
          updatedAt: new Date(),
        })
        .where(
          and(
            eq(subscription.providerSubscriptionId, event.subscriptionId),
            or(isNull(subscription.providerEventAt), lte(subscription.providerEventAt, event.createdAt)),
          ),
        )
        .returning({ userId: subscription.userId });
      return updated.length ? "applied" : "ignored";
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

/**
 * Asks the provider to cancel and refund each refused subscription not yet settled (its
 * own provider's only). Returns the subscription ids it could not settle; they are tried
 * again by the next webhook and the sweeper.
 */
export async function settlePendingRefusals(
  deps: Pick<BillingDeps, "db" | "payments"> & { log?: (msg: string, data: object) => void },
): Promise<string[]> {
  const pending = await deps.db
    .select()
    .from(refusedSubscription)
    .where(and(isNull(refusedSubscription.settledAt), eq(refusedSubscription.provider, deps.payments.kind)))
    .orderBy(refusedSubscription.createdAt)
    .limit(20);
  const failed: string[] = [];
  for (const r of pending) {
    try {
      await deps.payments.refuseSubscription(r.providerSubscriptionId);
      await deps.db
        .update(refusedSubscription)
        .set({ settledAt: new Date() })
        .where(eq(refusedSubscription.id, r.id));
      deps.log?.("duplicate subscription cancelled and refunded", {
        userId: r.userId,
        subscriptionId: r.providerSubscriptionId,
      });
    } catch (err) {
      failed.push(r.providerSubscriptionId);
      deps.log?.("duplicate subscription not yet cancelled", {
        subscriptionId: r.providerSubscriptionId,
        err: String(err),
      });
    }
  }
  return failed;
}

/** What the account and pricing pages show of a user's subscription, and what they may do. */
export interface SubscriptionView {
  planId: string;
  planName: string;
  /** active | past_due | canceled */
  status: string;
  provider: string;
  /** The paid period has not ended: the plan applies now. */
  live: boolean;
  /** End of the paid period: the renewal date, or when the plan ends. */
  periodEnd: string;
  /** Cancelled by its owner: ends at periodEnd. */
  cancelAtPeriodEnd: boolean;
  /** Live and renewing at periodEnd. */
  renews: boolean;
  canCancel: boolean;
  canResume: boolean;
  /** Stripe's customer portal is available (Stripe configured, a Stripe customer). */
  canManageBilling: boolean;
}

function viewOf(
  deps: Pick<BillingDeps, "pricing" | "payments" | "testCheckout">,
  row: SubscriptionRow,
  now = new Date(),
): SubscriptionView {
  const live = isLive(row, now);
  const mode = checkoutMode(deps);
  // Managed here only by the provider that bills it (a test subscription while Stripe is on is read-only).
  const manageable =
    live &&
    row.status !== "canceled" &&
    row.provider === mode &&
    (row.provider === "test" || !!row.providerSubscriptionId);
  return {
    planId: row.planId,
    planName: planName(deps.pricing, row.planId),
    status: row.status,
    provider: row.provider,
    live,
    periodEnd: row.currentPeriodEnd.toISOString(),
    cancelAtPeriodEnd: row.cancelAtPeriodEnd,
    renews: isRenewing(row, now),
    canCancel: manageable && !row.cancelAtPeriodEnd,
    canResume: manageable && row.cancelAtPeriodEnd,
    canManageBilling: mode === "stripe" && row.provider === "stripe" && !!row.providerCustomerId,
  };
}

/** The user's subscription (null: never subscribed) and how this server takes purchases. */
export async function getSubscription(
  deps: Pick<BillingDeps, "db" | "pricing" | "payments" | "testCheckout">,
  userId: string,
): Promise<{ checkout: CheckoutMode; subscription: SubscriptionView | null }> {
  const row = await currentSubscription(deps.db, userId);
  return { checkout: checkoutMode(deps), subscription: row ? viewOf(deps, row) : null };
}

function noSubscription(): AppError {
  return new AppError(
    "NOT_FOUND",
    "You have no subscription that can be changed here.",
    {},
    { key: "noSubscription" },
  );
}

/**
 * Cancel at period end (the plan stays until its paid period ends, then lapses) or resume
 * before then. Stripe's subscription is changed through its API first; the row follows
 * Stripe's answer. A test subscription changes in the database alone.
 */
export async function setSubscriptionCancel(
  deps: Pick<BillingDeps, "db" | "pricing" | "payments" | "testCheckout">,
  userId: string,
  cancel: boolean,
): Promise<SubscriptionView> {
  const row = await currentSubscription(deps.db, userId);
  if (!row) throw noSubscription();
  const view = viewOf(deps, row);
  if (!(cancel ? view.canCancel : view.canResume)) {
    // Already in the state asked for: nothing to do (a double click, two tabs).
    if (
      view.live &&
      view.status !== "canceled" &&
      row.cancelAtPeriodEnd === cancel &&
      row.provider === checkoutMode(deps)
    ) {
      return view;
    }
    throw noSubscription();
  }
  let next = { cancelAtPeriodEnd: cancel, status: null as string | null };
  if (row.provider === "stripe") {
    try {
      next = await deps.payments.setCancelAtPeriodEnd(row.providerSubscriptionId!, cancel);
    } catch {
      throw billingUnavailable();
    }
  }
  const [updated] = await deps.db
    .update(subscription)
    .set({
      cancelAtPeriodEnd: next.cancelAtPeriodEnd,
      ...(next.status ? { status: next.status } : {}),
      updatedAt: new Date(),
    })
    .where(
      and(
        eq(subscription.userId, userId),
        row.providerSubscriptionId
          ? eq(subscription.providerSubscriptionId, row.providerSubscriptionId)
          : isNull(subscription.providerSubscriptionId),
      ),
    )
    .returning();
  return viewOf(deps, updated ?? row);
}

/** A one-time link to Stripe's customer portal (cards, invoices, cancellation) for the user. */
export async function billingPortalUrl(
  deps: Pick<BillingDeps, "db" | "pricing" | "payments" | "testCheckout" | "appUrl">,
  userId: string,
  returnUrl: string,
): Promise<string> {
  const row = await currentSubscription(deps.db, userId);
  if (!row || !viewOf(deps, row).canManageBilling || !row.providerCustomerId) throw noSubscription();
  try {
    return await deps.payments.createPortalSession(row.providerCustomerId, returnUrl);
  } catch {
    throw billingUnavailable();
  }
}

/**
 * The test checkout takes no payment, so its renewals are simulated: a test subscription
 * whose period ended and that was not cancelled renews through the same invoice.paid path
 * as Stripe's (a month's credits, the next period). Only while the test checkout is on.
 */
export async function renewTestSubscriptions(
  deps: Pick<BillingDeps, "db" | "pricing" | "payments" | "testCheckout">,
  now = new Date(),
): Promise<number> {
  if (checkoutMode(deps) !== "test") return 0;
  const due = await deps.db
    .select()
    .from(subscription)
    .where(
      and(
        eq(subscription.provider, "test"),
        ne(subscription.status, "canceled"),
        eq(subscription.cancelAtPeriodEnd, false),
        lte(subscription.currentPeriodEnd, now),
      ),
    )
    .limit(100);
  let renewed = 0;
  for (const row of due) {
    if (!row.providerSubscriptionId) continue;
    const from = row.currentPeriodEnd.getTime();
    const periodEnd = new Date(Math.max(from, now.getTime()) + MONTH_MS);
    const applied = await applyPaymentEvent(
      deps,
      {
        id: `${row.providerSubscriptionId}:renew:${from}`,
        type: "invoice.paid",
        invoiceId: `test_in_${row.providerSubscriptionId}_${from}`,
        subscriptionId: row.providerSubscriptionId,
        periodEnd,
        charged: testCharge(deps.pricing, row.planId),
      },
      "test",
    );
    if (applied === "applied") renewed++;
  }
  return renewed;
}

/**
 * What the test checkout "charges": the product's price in the price table at that moment
 * (recorded then, so a later change of PRICING_JSON does not rewrite its revenue).
 */
function testCharge(pricing: Pricing, productId: string): Charged | undefined {
  const product = findProduct(pricing, productId);
  if (!product) return undefined;
  return {
    amount: product.kind === "pack" ? product.pack.priceCents : product.plan.priceCents,
    currency: pricing.currency,
  };
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
  const product = findProduct(deps.pricing, checkout.productId);
  if (checkout.status === "refused" && product?.kind === "plan")
    throw refusedCheckout(deps.pricing, product.plan);
  const subscriptionId = `test_sub_${checkoutId}`;
  const periodEnd = new Date(Date.now() + MONTH_MS);
  const completed = await applyPaymentEvent(
    deps,
    {
      id: `${checkoutId}:completed`,
      type: "checkout.completed",
      checkoutId,
      paid: true,
      subscriptionId,
      periodEnd,
      ...(checkout.kind === "pack" ? { charged: testCharge(deps.pricing, checkout.productId) } : {}),
    },
    "test",
  );
  if (completed === "refused" && product?.kind === "plan") {
    // Another checkout of this plan completed first: nothing applied, nothing to refund.
    await settlePendingRefusals(deps);
    throw refusedCheckout(deps.pricing, product.plan);
  }
  if (checkout.kind === "plan") {
    await applyPaymentEvent(
      deps,
      {
        id: `${checkoutId}:invoice-1`,
        type: "invoice.paid",
        invoiceId: `test_in_${checkoutId}_1`,
        subscriptionId,
        periodEnd,
        charged: testCharge(deps.pricing, checkout.productId),
      },
      "test",
    );
  }
}

function refusedCheckout(pricing: Pricing, plan: Plan): AppError {
  const name = planName(pricing, plan.id);
  return new AppError(
    "ALREADY_SUBSCRIBED",
    `You already have the ${name} plan. Nothing was charged.`,
    { planId: plan.id },
    { key: "alreadySubscribed", values: { plan: name } },
  );
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
