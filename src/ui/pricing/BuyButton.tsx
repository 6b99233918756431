"use client";
import { useTranslations } from "next-intl";
import { useState } from "react";
import { toast } from "sonner";
import { useRouter } from "@/i18n/navigation";
import { useAccount } from "@/ui/account/account-store";
import { Button } from "@/ui/primitives/Button";
import { useServerMessage } from "./use-subscription";

/** Starts a checkout (Stripe or the test checkout) for a pack or plan. */
export function BuyButton({ productId, label }: { productId: string; label: string }) {
  const t = useTranslations("pricing");
  const serverMessage = useServerMessage();
  const account = useAccount();
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  if (account.status === "signedOut") {
    return (
      <Button variant="secondary" className="w-full" onClick={() => router.push("/sign-in?next=/pricing")}>
        {t("signInToBuy")}
      </Button>
    );
  }
  return (
    <Button
      className="w-full"
      disabled={busy || account.status === "loading"}
      data-testid={`buy-${productId}`}
      onClick={async () => {
        setBusy(true);
        try {
          const res = await fetch("/api/checkout", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ productId }),
          });
          const body = (await res.json()) as { url?: string; messageKey?: string };
          // The server's reason in the user's language (purchases not set up here, a plan
          // already bought).
          if (!res.ok && body.messageKey) {
            toast.error(serverMessage(body, t("checkoutFailed")));
            setBusy(false);
            return;
          }
          if (!res.ok || !body.url) throw new Error("checkout");
          if (body.url.startsWith("/")) router.push(body.url.replace(/^\/checkout/, "/checkout"));
          else window.location.assign(body.url);
        } catch {
          toast.error(t("checkoutFailed"));
          setBusy(false);
        }
      }}
    >
      {label}
    </Button>
  );
}
