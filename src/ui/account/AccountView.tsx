"use client";
import { useFormatter, useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { Link } from "@/i18n/navigation";
import { useAccount } from "./account-store";
import { CreditLedger, type LedgerNames, type LedgerRow } from "./CreditLedger";
import { DangerZone } from "./DangerZone";
import { SecuritySection } from "./SecuritySection";
import { SubscriptionSection } from "./SubscriptionSection";

type Entry = LedgerRow;
interface Img {
  id: string;
  url: string;
  createdAt: string;
  seed: number;
}

/** Balance, the user's past results, and the credit history. */
export function AccountView({
  ledgerNames = { effects: {}, products: {} },
}: {
  /** Effect titles and product names for the credit history, in the page's language. */
  ledgerNames?: LedgerNames;
} = {}) {
  const t = useTranslations("account");
  const th = useTranslations("history");
  const tc = useTranslations("common");
  const format = useFormatter();
  const account = useAccount();
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [images, setImages] = useState<Img[] | null>(null);

  useEffect(() => {
    if (account.status !== "signedIn") return;
    void fetch("/api/credits/ledger").then(
      async (r) => r.ok && setEntries(((await r.json()) as { entries: Entry[] }).entries),
    );
    void fetch("/api/images").then(
      async (r) => r.ok && setImages(((await r.json()) as { images: Img[] }).images),
    );
  }, [account.status, account.balance]);

  if (account.status === "loading") return <p className="mt-6">{tc("loading")}</p>;
  if (account.status === "signedOut")
    return (
      <p className="mt-6">
        {t("signInPrompt")}{" "}
        <Link href="/sign-in" className="font-medium text-violet-700 underline dark:text-violet-300">
          {tc("signIn")}
        </Link>
      </p>
    );
  return (
    <div className="mt-6 space-y-10">
      <section aria-labelledby="balance-h">
        <h2 id="balance-h" className="text-lg font-semibold">
          {t("balance")}
        </h2>
        <p className="mt-1 text-3xl font-bold" data-testid="account-balance">
          {tc("credits", { count: account.balance ?? 0 })}
        </p>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{account.user?.email}</p>
      </section>
      <SubscriptionSection />
      <section aria-labelledby="history-h">
        <h2 id="history-h" className="text-lg font-semibold">
          {t("history")}
        </h2>
        <Link
          href="/history"
          className="mt-1 inline-block text-sm font-medium text-violet-700 underline dark:text-violet-300"
          data-testid="account-history-link"
        >
          {th("accountLink")}
        </Link>
        {images && images.length === 0 ? (
          <p className="mt-2 text-zinc-600 dark:text-zinc-400">{t("noHistory")}</p>
        ) : null}
        <ul className="mt-3 grid grid-cols-2 gap-3 sm:grid-cols-4 lg:grid-cols-6">
          {images?.map((img) => (
            <li key={img.id}>
              <a href={img.url} target="_blank" rel="noreferrer" className="block">
                {/* eslint-disable-next-line @next/next/no-img-element -- private image */}
                <img
                  src={img.url}
                  alt={format.dateTime(new Date(img.createdAt), { dateStyle: "medium" })}
                  className="aspect-square w-full rounded-lg object-cover"
                  loading="lazy"
                />
              </a>
            </li>
          ))}
        </ul>
      </section>
      <CreditLedger entries={entries} names={ledgerNames} />
      <SecuritySection />
      <DangerZone />
    </div>
  );
}
