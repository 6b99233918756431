"use client";
import { useFormatter, useTranslations } from "next-intl";
import { Link } from "@/i18n/navigation";
import { BuyButton } from "./BuyButton";
import { useSubscription } from "./use-subscription";

/**
 * A plan card's action. The signed-in user's current plan is marked ("Current plan", its
 * renewal or end date) and not sold again; another plan is offered only once the current
 * one is set to end (the server refuses it otherwise, src/core/billing.ts).
 */
export function PlanAction({ planId, label, canBuy }: { planId: string; label: string; canBuy: boolean }) {
  const t = useTranslations("subscription");
  const format = useFormatter();
  const { state } = useSubscription();
  const sub = state.status === "ready" ? state.subscription : null;
  if (sub?.live) {
    const date = format.dateTime(new Date(sub.periodEnd), { dateStyle: "medium" });
    if (sub.planId === planId) {
      return (
        <div className="space-y-1" data-testid={`current-plan-${planId}`}>
          <p className="inline-block rounded-full bg-violet-100 px-3 py-1 text-sm font-semibold text-violet-900 dark:bg-violet-950 dark:text-violet-200">
            {t("currentPlan")}
          </p>
          <p className="text-sm text-zinc-700 dark:text-zinc-300" data-testid="current-plan-date">
            {sub.renews ? t("renewsOn", { date }) : t("endsOn", { date })}
          </p>
          <Link
            href="/account"
            className="text-sm font-medium text-violet-700 underline dark:text-violet-300"
          >
            {t("manageOnAccount")}
          </Link>
        </div>
      );
    }
    if (sub.renews) {
      return (
        <p className="text-sm text-zinc-700 dark:text-zinc-300" data-testid={`switch-plan-${planId}`}>
          {t("switchCancelFirst", { plan: sub.planName })}
        </p>
      );
    }
  }
  if (!canBuy) return null;
  // Until the subscription is known, no buy button (it could be the current plan).
  if (state.status === "loading") return <div className="h-9" aria-hidden />;
  return <BuyButton productId={planId} label={label} />;
}
