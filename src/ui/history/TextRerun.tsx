"use client";
import dynamic from "next/dynamic";
import { useTranslations } from "next-intl";
import { useState } from "react";
import { toast } from "sonner";
import { refreshAccount, useAccount } from "@/ui/account/account-store";
import type { BotCheckOutcome } from "@/ui/botcheck/BotCheckDialog";

const BotCheckDialog = dynamic(() => import("@/ui/botcheck/BotCheckDialog"), { ssr: false });

/**
 * "Re-run with the same settings" for a text-to-image result (the generic generate call
 * without a photo): it has no original photo, so the compare-and-re-run pair (CompareRerun,
 * shown only while originals are kept) never offers it. The same request again: the same
 * description, shape, model and seed, a new charge, the bot-check for the free plan; a server
 * without a generative engine any more refuses it with its translated reason.
 */
export function TextRerun({ imageId, className }: { imageId: string; className: string }) {
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
        messageKey?: string;
        messageValues?: Record<string, string | number>;
      };
      if (!res.ok) {
        const key = `server.${body.messageKey ?? ""}`;
        toast.error(
          res.status === 402
            ? t("rerunNoCredits")
            : body.messageKey && te.has(key as "server.busy")
              ? te(key as "server.busy", body.messageValues ?? {})
              : t("rerunFailed"),
        );
        return;
      }
      toast.success(t("rerunStarted"));
      void refreshAccount();
    } catch {
      toast.error(t("rerunFailed"));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button
        type="button"
        className={className}
        onClick={() => void rerun()}
        disabled={busy}
        data-testid="rerun-result"
      >
        {busy ? t("rerunning") : t("rerun")}
      </button>
      {botCheck ? <BotCheckDialog onDone={botCheck} /> : null}
    </>
  );
}
