"use client";
import { useFormatter, useTranslations } from "next-intl";

/** One row of GET /api/credits/ledger, as the page uses it. */
export interface LedgerRow {
  id: number;
  amount: number;
  kind: string;
  /** What it was for (src/core/credits.ts LedgerSource). */
  source?: "welcome" | "generation" | "refund" | "pack" | "subscription" | "other";
  effectId?: string | null;
  productId?: string | null;
  note: string | null;
  createdAt: string;
}

/** The names the ledger shows, in the page's language (the account page reads them on the server). */
export interface LedgerNames {
  /** Effect id to its page title (src/i18n/effect-copy). */
  effects: Record<string, string>;
  /** Pack or plan id to its name as sold. */
  products: Record<string, string>;
}

/**
 * The credit history: each movement named in the reader's language, what it was (welcome
 * credits, a generation, a refund, a pack, a plan's monthly credits) and what for (the
 * effect's page title, the pack or plan), never the English note the server keeps.
 */
export function CreditLedger({ entries, names }: { entries: LedgerRow[] | null; names: LedgerNames }) {
  const t = useTranslations("account");
  const format = useFormatter();
  const describe = (e: LedgerRow): { what: string; detail?: string } => {
    const effect = e.effectId ? names.effects[e.effectId] : undefined;
    const product = e.productId ? names.products[e.productId] : undefined;
    switch (e.source) {
      case "welcome":
        return { what: t("kind_grant") };
      case "generation":
        return { what: t("kind_charge"), detail: effect };
      case "refund":
        return { what: t("kind_refund"), detail: effect };
      case "pack":
        return { what: t("kind_pack"), detail: product };
      case "subscription":
        return { what: t("kind_subscription"), detail: product };
      default: {
        const key = `kind_${e.kind}` as "kind_grant";
        // An operator's adjustment shows the reason they gave (admin console).
        const detail = e.kind === "adjustment" && e.note ? e.note : undefined;
        return { what: t.has(key) ? t(key) : t("kind_adjustment"), detail };
      }
    }
  };
  return (
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
            {entries.map((e) => {
              const { what, detail } = describe(e);
              return (
                <tr
                  key={e.id}
                  className="border-b border-zinc-100 dark:border-zinc-900"
                  data-testid="ledger-row"
                >
                  <td className="py-2">
                    {format.dateTime(new Date(e.createdAt), { dateStyle: "medium", timeStyle: "short" })}
                  </td>
                  <td className="py-2">
                    {what}
                    {detail ? <span className="text-zinc-600 dark:text-zinc-400"> · {detail}</span> : null}
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
              );
            })}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
