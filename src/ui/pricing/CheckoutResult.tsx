"use client";
import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { Link } from "@/i18n/navigation";
import { refreshAccount } from "@/ui/account/account-store";

/**
 * After a checkout: Stripe's webhook may land a moment after the browser, so the page waits
 * for the checkout to be completed (up to 30 s), then refreshes the balance in the header. A
 * checkout refused as a second subscription to the same plan says so.
 */
export function CheckoutResult({ outcome }: { outcome: "success" | "cancel" }) {
  const t = useTranslations("checkout");
  const ts = useTranslations("subscription");
  const [completed, setCompleted] = useState(false);
  const [refused, setRefused] = useState(false);
  useEffect(() => {
    if (outcome !== "success") return;
    const id = new URLSearchParams(window.location.search).get("checkout");
    let stop = false;
    void (async () => {
      for (let i = 0; i < 30 && !stop; i++) {
        const r = id ? await fetch(`/api/checkout/${id}`) : null;
        const status = r?.ok ? ((await r.json()) as { status: string }).status : null;
        if (status === "completed") {
          setCompleted(true);
          await refreshAccount();
          return;
        }
        // A second subscription to a plan already held: not applied, refunded (billing.ts).
        if (status === "refused") {
          setRefused(true);
          return;
        }
        await new Promise((res) => setTimeout(res, 1_000));
      }
    })();
    return () => {
      stop = true;
    };
  }, [outcome]);
  return (
    <div className="mt-6 space-y-6">
      <p data-testid="checkout-result">
        {outcome === "cancel"
          ? t("cancelBody")
          : refused
            ? ts("refusedCheckout")
            : completed
              ? t("successBody")
              : t("pendingBody")}
      </p>
      <div className="flex gap-4">
        <Link
          href="/nano-banana-lora"
          className="rounded-lg bg-violet-600 px-4 py-2 font-semibold text-white hover:bg-violet-700"
        >
          {t("startCreating")}
        </Link>
        <Link href="/pricing" className="px-4 py-2 underline">
          {t("backToPricing")}
        </Link>
      </div>
    </div>
  );
}
