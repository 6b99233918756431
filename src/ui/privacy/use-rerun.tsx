"use client";
import dynamic from "next/dynamic";
import { useTranslations } from "next-intl";
import { useState, type ReactNode } from "react";
import { toast } from "sonner";
import { refreshAccount, useAccount } from "@/ui/account/account-store";
import type { BotCheckOutcome } from "@/ui/botcheck/BotCheckDialog";

const BotCheckDialog = dynamic(() => import("@/ui/botcheck/BotCheckDialog"), { ssr: false });

/**
 * "Re-run with the same settings" for one result: the bot-check for the free plan, then
 * POST /api/results/:id/rerun (a new charge through the normal submit), its refusals as
 * translated toasts. `dialog` must be rendered by the caller (the bot-check while it runs).
 * `onGone`: the originals were deleted meanwhile (the server answered `originalsGone`).
 */
export function useRerun(
  imageId: string,
  opts: { onGone?(): void; onRerun?(taskIds: string[]): void } = {},
): { busy: boolean; rerun: () => Promise<void>; dialog: ReactNode } {
  const t = useTranslations("privacy");
  const te = useTranslations("errors");
  const account = useAccount();
  const [busy, setBusy] = useState(false);
  const [botCheck, setBotCheck] = useState<((outcome: BotCheckOutcome) => void) | null>(null);

  const rerun = async () => {
    if (busy) return;
    setBusy(true);
    try {
      let token: string | null = null;
      if (account.plan?.plan !== "subscribed") {
        const outcome = await new Promise<BotCheckOutcome>((resolve) => setBotCheck(() => resolve));
        setBotCheck(null);
        // A closed check is the user's choice, not a failure: nothing to report.
        if (outcome.kind === "cancelled") return;
        if (outcome.kind === "failed") {
          toast.error(te("verificationFailed"));
          return;
        }
        token = outcome.token;
      }
      const res = await fetch(`/api/results/${encodeURIComponent(imageId)}/rerun`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": crypto.randomUUID() },
        body: JSON.stringify({ turnstileToken: token }),
      });
      const body = (await res.json().catch(() => ({}))) as {
        data?: { taskIds?: string[] };
        reason?: string;
        messageKey?: string;
        messageValues?: Record<string, string | number>;
      };
      if (!res.ok) {
        const key = `server.${body.messageKey ?? ""}`;
        toast.error(
          res.status === 402
            ? t("rerunNoCredits")
            : body.reason === "originalsGone"
              ? t("rerunGone")
              : body.messageKey && te.has(key as "server.busy")
                ? te(key as "server.busy", body.messageValues ?? {})
                : t("rerunFailed"),
        );
        if (body.reason === "originalsGone") opts.onGone?.();
        return;
      }
      toast.success(t("rerunStarted"));
      void refreshAccount();
      opts.onRerun?.(body.data?.taskIds ?? []);
    } catch {
      toast.error(t("rerunFailed"));
    } finally {
      setBusy(false);
    }
  };

  return { busy, rerun, dialog: botCheck ? <BotCheckDialog onDone={botCheck} /> : null };
}
