"use client";
import { useFormatter, useLocale, useTranslations } from "next-intl";
import { useState } from "react";
import { toast } from "sonner";
import { Link } from "@/i18n/navigation";
import { Button } from "@/ui/primitives/Button";
import { useServerMessage, useSubscription, type SubscriptionView } from "@/ui/pricing/use-subscription";
import { refreshAccount } from "./account-store";

/**
 * The account page's plan: name, status, renewal (or end) date; "Cancel" (at period end: the
 * plan stays until its end date, then lapses) and "Resume" before then; with Stripe, "Manage
 * billing" opens Stripe's customer portal. A test-checkout subscription says it is test mode.
 */
export function SubscriptionSection() {
  const t = useTranslations("subscription");
  const tc = useTranslations("common");
  const format = useFormatter();
  const locale = useLocale();
  const serverMessage = useServerMessage();
  const { state, reload } = useSubscription();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);

  const act = async (path: "cancel" | "resume" | "portal") => {
    setBusy(true);
    try {
      const res = await fetch(`/api/subscription/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: path === "portal" ? JSON.stringify({ locale }) : "{}",
      });
      const body = (await res.json().catch(() => null)) as {
        url?: string;
        subscription?: SubscriptionView;
      } | null;
      if (!res.ok) {
        toast.error(serverMessage(body, t("actionFailed")));
        return;
      }
      if (path === "portal" && body?.url) {
        window.location.assign(body.url);
        return;
      }
      setConfirming(false);
      const date = body?.subscription
        ? format.dateTime(new Date(body.subscription.periodEnd), { dateStyle: "medium" })
        : "";
      toast.success(path === "cancel" ? t("canceled", { date }) : t("resumed", { date }));
      await Promise.all([reload(), refreshAccount()]);
    } catch {
      toast.error(t("actionFailed"));
    } finally {
      setBusy(false);
    }
  };

  const sub = state.status === "ready" ? state.subscription : null;
  const date = sub ? format.dateTime(new Date(sub.periodEnd), { dateStyle: "medium" }) : "";
  const link = "text-sm font-medium text-violet-700 underline dark:text-violet-300";

  return (
    <section aria-labelledby="plan-h" data-testid="subscription-section">
      <h2 id="plan-h" className="text-lg font-semibold">
        {t("title")}
      </h2>
      {state.status !== "ready" ? (
        <p className="mt-1">{tc("loading")}</p>
      ) : !sub || !sub.live ? (
        <div className="mt-1 space-y-1">
          <p data-testid="account-plan">{t("free")}</p>
          {sub ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="subscription-ended">
              {t("ended", { plan: sub.planName, date })}
            </p>
          ) : null}
          <Link href="/pricing#plans" className={link}>
            {t("seePlans")}
          </Link>
        </div>
      ) : (
        <div className="mt-1 space-y-3">
          <p data-testid="account-plan">
            <span className="font-medium">{t("planName", { plan: sub.planName })}</span>
            <span className="text-sm text-zinc-600 dark:text-zinc-400">
              {" · "}
              <span data-testid="subscription-status">
                {sub.status === "past_due"
                  ? t("statusPastDue")
                  : sub.renews
                    ? t("statusActive")
                    : t("statusCanceling")}
              </span>
              {" · "}
              <span data-testid="subscription-date">
                {sub.renews ? t("renewsOn", { date }) : t("endsOn", { date })}
              </span>
            </span>
          </p>
          {!sub.renews ? (
            <p className="text-sm text-zinc-700 dark:text-zinc-300">{t("endsExplain", { date })}</p>
          ) : null}
          {sub.status === "past_due" ? (
            <p className="text-sm text-red-700 dark:text-red-400">{t("pastDueExplain")}</p>
          ) : null}
          {sub.provider === "test" ? (
            <p
              className="rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
              data-testid="subscription-test-mode"
            >
              {t("testMode")}
            </p>
          ) : null}
          {confirming && sub.canCancel ? (
            <div
              className="space-y-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
              role="group"
              aria-labelledby="cancel-confirm"
            >
              <p id="cancel-confirm" className="text-sm">
                {t("cancelConfirm", { plan: sub.planName, date })}
              </p>
              <div className="flex flex-wrap gap-2">
                <Button
                  disabled={busy}
                  onClick={() => void act("cancel")}
                  data-testid="subscription-cancel-confirm"
                >
                  {t("cancelYes")}
                </Button>
                <Button variant="secondary" disabled={busy} onClick={() => setConfirming(false)}>
                  {t("cancelNo")}
                </Button>
              </div>
            </div>
          ) : (
            <div className="flex flex-wrap items-center gap-2">
              {sub.canCancel ? (
                <Button
                  variant="secondary"
                  disabled={busy}
                  onClick={() => setConfirming(true)}
                  data-testid="subscription-cancel"
                >
                  {t("cancel")}
                </Button>
              ) : null}
              {sub.canResume ? (
                <Button disabled={busy} onClick={() => void act("resume")} data-testid="subscription-resume">
                  {t("resume")}
                </Button>
              ) : null}
              {sub.canManageBilling ? (
                <Button
                  variant="secondary"
                  disabled={busy}
                  onClick={() => void act("portal")}
                  data-testid="subscription-manage-billing"
                  title={t("manageBillingHint")}
                >
                  {t("manageBilling")}
                </Button>
              ) : null}
              <Link href="/pricing#plans" className={link}>
                {t("seePlans")}
              </Link>
            </div>
          )}
        </div>
      )}
    </section>
  );
}
