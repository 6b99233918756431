"use client";
import { useTranslations } from "next-intl";
import { useCallback, useEffect, useState } from "react";
import { useAccount } from "@/ui/account/account-store";

/** GET /api/subscription's answer (src/core/billing.ts#SubscriptionView). */
export interface SubscriptionView {
  planId: string;
  planName: string;
  status: string;
  provider: string;
  live: boolean;
  periodEnd: string;
  cancelAtPeriodEnd: boolean;
  renews: boolean;
  canCancel: boolean;
  canResume: boolean;
  canManageBilling: boolean;
}

export type SubscriptionState =
  | { status: "loading" }
  | { status: "signedOut" }
  | { status: "ready"; checkout: "stripe" | "test" | "none"; subscription: SubscriptionView | null };

/** The signed-in user's subscription, loaded once the account is known; reload() after a change. */
export function useSubscription(): { state: SubscriptionState; reload: () => Promise<void> } {
  const account = useAccount();
  const [state, setState] = useState<SubscriptionState>({ status: "loading" });
  const signedIn = account.status === "signedIn";
  const reload = useCallback(async () => {
    try {
      const res = await fetch("/api/subscription", { cache: "no-store" });
      if (res.status === 401) return setState({ status: "signedOut" });
      if (!res.ok) return;
      const body = (await res.json()) as {
        checkout: "stripe" | "test" | "none";
        subscription: SubscriptionView | null;
      };
      setState({ status: "ready", ...body });
    } catch {
      // Offline: keep what we had.
    }
  }, []);
  useEffect(() => {
    if (account.status === "signedOut") setState({ status: "signedOut" });
    else if (signedIn) void reload();
  }, [account.status, signedIn, reload]);
  return { state, reload };
}

/**
 * The server's refusal in the user's language: this feature's own messages first
 * (subscription.server.*), then the shared ones (errors.server.*), else `fallback`.
 */
export function useServerMessage(): (body: unknown, fallback: string) => string {
  const ts = useTranslations("subscription.server");
  const te = useTranslations("errors.server");
  return (body, fallback) => {
    const b = body as { messageKey?: unknown; messageValues?: Record<string, string | number> } | null;
    const key = typeof b?.messageKey === "string" ? b.messageKey : null;
    const values = b?.messageValues ?? {};
    if (key && ts.has(key as "alreadySubscribed"))
      return ts(key as "alreadySubscribed", values as { plan: string });
    if (key && te.has(key as "busy")) return te(key as "busy", values);
    return fallback;
  };
}
