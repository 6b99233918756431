"use client";
import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { useRouter } from "@/i18n/navigation";
import { Button } from "@/ui/primitives/Button";
import { useServerMessage } from "./use-subscription";

/** The built-in test checkout: clearly not a real payment; Pay completes it locally. */
export function TestCheckout({ id, products }: { id: string; products: Record<string, string> }) {
  const t = useTranslations("checkout");
  const router = useRouter();
  const [checkout, setCheckout] = useState<{ productId: string; status: string } | null | "missing">(null);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const serverMessage = useServerMessage();
  useEffect(() => {
    void fetch(`/api/checkout/${id}`).then(async (r) => setCheckout(r.ok ? await r.json() : "missing"));
  }, [id]);
  if (checkout === "missing") return <p className="mt-6">{t("notFound")}</p>;
  return (
    <div className="mt-6 space-y-6">
      <p className="rounded-xl border-2 border-dashed border-amber-400 bg-amber-50 p-4 font-medium text-amber-900 dark:bg-amber-950/40 dark:text-amber-200">
        {t("testBanner")}
      </p>
      <dl className="grid grid-cols-[8rem_1fr] gap-y-2">
        <dt className="text-zinc-600 dark:text-zinc-400">{t("product")}</dt>
        <dd className="font-medium">
          {checkout ? (products[checkout.productId] ?? checkout.productId) : "…"}
        </dd>
      </dl>
      {refusal ? (
        <p role="alert" className="font-medium text-red-700 dark:text-red-400" data-testid="checkout-refused">
          {refusal}
        </p>
      ) : null}
      <div className="flex gap-3">
        <Button
          disabled={!checkout || busy}
          onClick={async () => {
            setBusy(true);
            const r = await fetch(`/api/checkout/test/${id}/complete`, { method: "POST" });
            if (r.status === 409) {
              // Already subscribed (another checkout of this plan completed first): say so here.
              setRefusal(serverMessage(await r.json().catch(() => null), t("notFound")));
              setBusy(false);
              return;
            }
            router.push(r.ok ? `/checkout/success?checkout=${id}` : `/checkout/cancel?checkout=${id}`);
          }}
        >
          {t("pay")}
        </Button>
        <Button
          variant="secondary"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            await fetch(`/api/checkout/test/${id}/cancel`, { method: "POST" });
            router.push(`/checkout/cancel?checkout=${id}`);
          }}
        >
          {t("cancel")}
        </Button>
      </div>
    </div>
  );
}
