import { Hono } from "hono";
import { z } from "zod";
import {
  billingPortalUrl,
  cancelTestCheckout,
  checkoutMode,
  completeTestCheckout,
  getCheckout,
  getSubscription,
  purchasesNotConfigured,
  setSubscriptionCancel,
  settlePendingRefusals,
  startCheckout,
  applyPaymentEvent,
} from "@/core/billing";
import { AppError } from "@/core/errors";
import { getPlanStatus } from "@/core/plans";
import { DEFAULT_LOCALE, LOCALES } from "@/i18n/locales";
import type { Services } from "@/platform/services";
import { requireUser, type ApiEnv } from "../context";

const checkoutBody = z.object({ productId: z.string().min(1).max(60) });
/** The page's locale, so Stripe's portal sends the user back to the account page in it. */
const portalBody = z.object({ locale: z.enum(LOCALES).optional() }).strict();

const billingDeps = (s: Services) => ({
  db: s.db,
  pricing: s.pricing,
  payments: s.payments,
  appUrl: s.env.appUrl,
  testCheckout: s.env.TEST_CHECKOUT,
});

/** A checkout id as we or Stripe make them; anything else (a NUL byte, a slash) is not found. */
function checkoutId(raw: string): string {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(raw)) throw new AppError("NOT_FOUND", "Checkout not found");
  return raw;
}

/** Pricing, the user's plan, checkouts (Stripe or the test checkout) and Stripe webhooks. */
export function billingRoutes() {
  return (
    new Hono<ApiEnv>()
      .get("/pricing", (c) => {
        const s = c.get("services");
        return c.json({
          ...s.pricing,
          // "stripe", "test" (TEST_CHECKOUT=true) or "none" (purchases refused).
          checkout: checkoutMode({ payments: s.payments, testCheckout: s.env.TEST_CHECKOUT }),
          subscriberUploadCap: s.env.SUBSCRIBER_UPLOAD_CAP,
        });
      })
      .get("/plan", async (c) => {
        const user = requireUser(c);
        const s = c.get("services");
        return c.json(await getPlanStatus(s.db, s.pricing, s.env.SUBSCRIBER_UPLOAD_CAP, user.id));
      })
      // The signed-in user's subscription: plan, status, renewal or end date, what they may do.
      .get("/subscription", async (c) => {
        const user = requireUser(c);
        c.header("Cache-Control", "no-store");
        return c.json(await getSubscription(billingDeps(c.get("services")), user.id));
      })
      // Cancel at period end (the plan stays until its end date) and resume before then.
      .post("/subscription/cancel", async (c) => {
        const user = requireUser(c);
        return c.json({
          subscription: await setSubscriptionCancel(billingDeps(c.get("services")), user.id, true),
        });
      })
      .post("/subscription/resume", async (c) => {
        const user = requireUser(c);
        return c.json({
          subscription: await setSubscriptionCancel(billingDeps(c.get("services")), user.id, false),
        });
      })
      // Stripe's customer portal: a one-time URL the browser goes to.
      .post("/subscription/portal", async (c) => {
        const user = requireUser(c);
        const parsed = portalBody.safeParse(await c.req.json().catch(() => ({})));
        if (!parsed.success) throw new AppError("VALIDATION", "locale must be one of the site's locales");
        const s = c.get("services");
        const locale = parsed.data.locale ?? DEFAULT_LOCALE;
        const returnUrl = `${s.env.appUrl}${locale === DEFAULT_LOCALE ? "" : `/${locale}`}/account`;
        return c.json({ url: await billingPortalUrl(billingDeps(s), user.id, returnUrl) });
      })
      .post("/checkout", async (c) => {
        const user = requireUser(c);
        const parsed = checkoutBody.safeParse(await c.req.json().catch(() => null));
        if (!parsed.success) throw new AppError("VALIDATION", "productId is required");
        const s = c.get("services");
        const { url, checkoutId } = await startCheckout(
          {
            db: s.db,
            pricing: s.pricing,
            payments: s.payments,
            appUrl: s.env.appUrl,
            testCheckout: s.env.TEST_CHECKOUT,
          },
          user,
          parsed.data.productId,
        );
        return c.json({ url, checkoutId });
      })
      .get("/checkout/:id", async (c) => {
        const user = requireUser(c);
        const checkout = await getCheckout(c.get("services").db, user.id, checkoutId(c.req.param("id")));
        if (!checkout) return c.json({ message: "Checkout not found" }, 404);
        return c.json(checkout);
      })
      .post("/checkout/test/:id/complete", async (c) => {
        const user = requireUser(c);
        const s = c.get("services");
        await completeTestCheckout(
          { db: s.db, pricing: s.pricing, payments: s.payments, testCheckout: s.env.TEST_CHECKOUT },
          user.id,
          checkoutId(c.req.param("id")),
        );
        return c.json({ status: "completed" });
      })
      .post("/checkout/test/:id/cancel", async (c) => {
        const user = requireUser(c);
        const s = c.get("services");
        const mode = checkoutMode({ payments: s.payments, testCheckout: s.env.TEST_CHECKOUT });
        if (mode === "none") throw purchasesNotConfigured();
        if (mode !== "test") throw new AppError("NOT_FOUND", "Checkout not found");
        await cancelTestCheckout(s.db, user.id, checkoutId(c.req.param("id")));
        return c.json({ status: "canceled" });
      })
      .post("/webhooks/stripe", async (c) => {
        const s = c.get("services");
        if (!s.stripe) return c.json({ message: "Stripe is not configured" }, 404);
        const signature = c.req.header("stripe-signature");
        const raw = await c.req.text();
        let event;
        try {
          if (!signature) throw new Error("missing signature");
          event = s.stripe.parseWebhook(raw, signature);
        } catch {
          return c.json({ message: "Invalid signature" }, 400);
        }
        if (!event) return c.json({ received: true, applied: "ignored" });
        const applied = await applyPaymentEvent(s, event, "stripe");
        // A duplicate subscription (two checkouts raced) is cancelled and refunded at Stripe now;
        // if Stripe cannot be reached, a 500 makes Stripe deliver this event again to retry.
        const failed = await settlePendingRefusals({
          db: s.db,
          payments: s.payments,
          log: (msg, data) => s.log.warn(data, msg),
        });
        const mine = "subscriptionId" in event ? event.subscriptionId : undefined;
        if ((applied === "refused" || applied === "duplicate") && mine && failed.includes(mine)) {
          return c.json({ message: "Duplicate subscription not yet cancelled; retry" }, 500);
        }
        return c.json({ received: true, applied });
      })
  );
}

/** What the browser needs to run the bot-check, and ALTCHA's challenges. */
export function botcheckRoutes() {
  return new Hono<ApiEnv>()
    .get("/config", (c) => {
      const s = c.get("services");
      return c.json(
        s.altcha
          ? { kind: "altcha", challengeUrl: "/api/botcheck/challenge" }
          : { kind: "turnstile", siteKey: s.env.TURNSTILE_SITE_KEY },
      );
    })
    .get("/challenge", async (c) => {
      const s = c.get("services");
      if (!s.altcha) return c.json({ message: "ALTCHA is not enabled" }, 404);
      c.header("Cache-Control", "no-store");
      return c.json(await s.altcha.createChallenge());
    });
}
