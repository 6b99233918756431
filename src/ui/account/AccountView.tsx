"use client";
import { useFormatter, useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { Link } from "@/i18n/navigation";
import { useAccount } from "./account-store";

interface Entry {
  id: number;
  amount: number;
  kind: string;
  note: string | null;
  createdAt: string;
}
interface Img {
  id: string;
  url: string;
  createdAt: string;
  seed: number;
}

/** Balance, the user's past results, and the credit history. */
export function AccountView() {
  const t = useTranslations("account");
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
      <section aria-labelledby="plan-h">
        <h2 id="plan-h" className="text-lg font-semibold">
          {t("plan")}
        </h2>
        <p className="mt-1" data-testid="account-plan">
          {account.plan?.plan === "subscribed"
            ? t("planSubscribed", { name: account.plan.planId ?? "" })
            : t("planFree")}
          {account.plan?.periodEnd && account.plan.plan === "subscribed" ? (
            <span className="text-sm text-zinc-600 dark:text-zinc-400">
              {" · "}
              {t(account.plan.status === "canceled" ? "planEnds" : "planRenews", {
                date: format.dateTime(new Date(account.plan.periodEnd), { dateStyle: "medium" }),
              })}
            </span>
          ) : null}
        </p>
        <Link
          href="/pricing#plans"
          className="text-sm font-medium text-violet-700 underline dark:text-violet-300"
        >
          {t("managePlan")}
        </Link>
      </section>
      <section aria-labelledby="history-h">
        <h2 id="history-h" className="text-lg font-semibold">
          {t("history")}
        </h2>
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
      <section aria-labelledby="ledger-h">
        <h2 id="ledger-h" className="text-lg font-semibold">
          {t("ledger")}
        </h2>
        {entries && entries.length === 0 ? <p className="mt-2">{t("ledgerEmpty")}</p> : null}
        {entries && entries.length > 0 ? (
          <table className="mt-3 w-full text-sm">
            <thead>
              <tr className="border-b border-zinc-200 text-start dark:border-zinc-800">
                <th className="py-2 text-start font-medium">{t("date")}</th>
                <th className="py-2 text-start font-medium">{t("description")}</th>
                <th className="py-2 text-end font-medium">{t("amount")}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id} className="border-b border-zinc-100 dark:border-zinc-900">
                  <td className="py-2">
                    {format.dateTime(new Date(e.createdAt), { dateStyle: "medium", timeStyle: "short" })}
                  </td>
                  <td className="py-2">
                    {t(`kind_${e.kind}` as "kind_grant")}
                    {e.note ? <span className="text-zinc-600 dark:text-zinc-400"> · {e.note}</span> : null}
                  </td>
                  <td
                    className={
                      "py-2 text-end tabular-nums " +
                      (e.amount < 0
                        ? "text-red-700 dark:text-red-400"
                        : "text-emerald-700 dark:text-emerald-400")
                    }
                  >
                    {format.number(e.amount, { signDisplay: "always" })}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
    </div>
  );
}
