import { Hono } from "hono";
import { z } from "zod";
import {
  cancelTestCheckout,
  checkoutMode,
  completeTestCheckout,
  getCheckout,
  purchasesNotConfigured,
  startCheckout,
  applyPaymentEvent,
} from "@/core/billing";
import { AppError } from "@/core/errors";
import { getPlanStatus } from "@/core/plans";
import { requireUser, type ApiEnv } from "../context";

const checkoutBody = z.object({ productId: z.string().min(1).max(60) });

/** A checkout id as we or Stripe make them; anything else (a NUL byte, a slash) is not found. */
function checkoutId(raw: string): string {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(raw)) throw new AppError("NOT_FOUND", "Checkout not found");
  return raw;
}

/** Pricing, the user's plan, checkouts (Stripe or the test checkout) and Stripe webhooks. */
export function billingRoutes() {
  return new Hono<ApiEnv>()
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
      return c.json({ received: true, applied });
    });
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
