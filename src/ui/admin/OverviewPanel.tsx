"use client";
import { useFormatter, useTranslations } from "next-intl";
import { useMemo, useState } from "react";
import { field, td, th } from "./admin-api";
import { LoadState } from "./Status";
import { TimeChart } from "./TimeChart";
import { useAdminData } from "./use-load";
import type { Overview, Revenue } from "@/core/admin/overview";

const PERIODS = [7, 30, 90] as const;
const PROVIDERS = ["test", "stripe"] as const;

const revenueOf = (rows: Revenue[], provider: Revenue["provider"], currency: string) =>
  rows.find((r) => r.provider === provider && r.currency === currency)?.amount ?? 0;

/**
 * Sign-ups, generations, revenue (as recorded at payment time, one chart per currency) and
 * credits per day, as charts and a table; engine failures and refused inputs per effect.
 */
export function OverviewPanel({ names }: { names: Record<string, string> }) {
  const t = useTranslations("admin");
  const format = useFormatter();
  const [days, setDays] = useState<number>(30);
  const { data, loading, error, reload } = useAdminData<Overview>(`/overview?days=${days}`);
  const charts = useMemo(() => {
    if (!data) return null;
    const col = <K extends keyof Overview["days"][number]>(k: K) => data.days.map((d) => Number(d[k]));
    return {
      days: data.days.map((d) => d.day),
      activity: [
        { label: t("overview.signups"), values: col("signups"), color: "#7c3aed" },
        { label: t("overview.generations"), values: col("generations"), color: "#0891b2" },
      ],
      revenue: data.currencies.map((currency) => ({
        currency,
        series: [
          {
            label: t("overview.revenueTest"),
            values: data.days.map((d) => revenueOf(d.revenue, "test", currency)),
            color: "#a1a1aa",
          },
          {
            label: t("overview.revenueStripe"),
            values: data.days.map((d) => revenueOf(d.revenue, "stripe", currency)),
            color: "#16a34a",
          },
        ],
      })),
      credits: [
        { label: t("overview.creditsGranted"), values: col("creditsGranted"), color: "#d97706" },
        { label: t("overview.creditsSpent"), values: col("creditsSpent"), color: "#dc2626" },
      ],
    };
  }, [data, t]);
  const money = (n: number, currency: string) =>
    format.number(n, { style: "currency", currency: currency.toUpperCase() });
  const providerLabel = (p: Revenue["provider"]) =>
    p === "stripe" ? t("overview.revenueStripe") : t("overview.revenueTest");
  // With one currency the columns are "Test checkout" and "Stripe"; with several, per currency.
  const revenueColumns = (data?.currencies ?? []).flatMap((currency) =>
    PROVIDERS.map((provider) => ({
      currency,
      provider,
      label:
        data!.currencies.length > 1
          ? t("overview.revenueIn", { provider: providerLabel(provider), currency: currency.toUpperCase() })
          : providerLabel(provider),
    })),
  );

  return (
    <div className="grid gap-4">
      <label className="grid max-w-xs gap-1 text-sm">
        {t("overview.days")}
        <select className={field} value={days} onChange={(e) => setDays(Number(e.target.value))}>
          {PERIODS.map((n) => (
            <option key={n} value={n}>
              {t("overview.lastDays", { n })}
            </option>
          ))}
        </select>
      </label>
      {!data || !charts ? (
        <LoadState loading={loading} error={error} onRetry={reload} />
      ) : (
        <>
          <div className="grid gap-4 lg:grid-cols-3">
            <TimeChart
              title={`${t("overview.signups")} · ${t("overview.generations")}`}
              days={charts.days}
              series={charts.activity}
            />
            {charts.revenue.map((r) => (
              <TimeChart
                key={r.currency}
                title={t("overview.revenue", { currency: r.currency.toUpperCase() })}
                days={charts.days}
                series={r.series}
                bars
              />
            ))}
            <TimeChart title={t("overview.credits")} days={charts.days} series={charts.credits} />
          </div>
          <section aria-labelledby="admin-revenue-h" className="text-sm" data-testid="admin-revenue">
            <h2 id="admin-revenue-h" className="text-lg font-semibold">
              {t("overview.revenueTotals")}
            </h2>
            {data.revenue.length ? (
              <ul className="mt-1 grid gap-1 tabular-nums">
                {data.revenue.map((r) => (
                  <li key={`${r.provider}:${r.currency}`}>
                    {providerLabel(r.provider)}: <strong>{money(r.amount, r.currency)}</strong> (
                    {t("overview.payments", { n: r.payments })})
                  </li>
                ))}
              </ul>
            ) : (
              <p className="mt-1">{t("none")}</p>
            )}
            {data.unrecordedPayments ? (
              <p className="mt-1 text-amber-800 dark:text-amber-300">
                {t("overview.unrecorded", { n: data.unrecordedPayments })}
              </p>
            ) : null}
            <p className="mt-1 text-zinc-600 dark:text-zinc-400">{t("overview.revenueNote")}</p>
          </section>
          <details className="rounded-xl border border-zinc-200 p-3 dark:border-zinc-800">
            <summary className="cursor-pointer text-sm font-semibold">{t("overview.tableSummary")}</summary>
            <div className="mt-2 overflow-x-auto">
              <table className="w-full min-w-[40rem] text-sm tabular-nums">
                <thead>
                  <tr className="border-b border-zinc-200 dark:border-zinc-800">
                    <th className={th}>{t("overview.day")}</th>
                    <th className={th}>{t("overview.signups")}</th>
                    <th className={th}>{t("overview.generations")}</th>
                    {revenueColumns.map((c) => (
                      <th key={`${c.provider}:${c.currency}`} className={th}>
                        {c.label}
                      </th>
                    ))}
                    <th className={th}>{t("overview.creditsGranted")}</th>
                    <th className={th}>{t("overview.creditsSpent")}</th>
                  </tr>
                </thead>
                <tbody>
                  {[...data.days].reverse().map((d) => (
                    <tr key={d.day} className="border-b border-zinc-100 dark:border-zinc-900">
                      <th scope="row" className={th}>
                        {format.dateTime(new Date(`${d.day}T00:00:00Z`), {
                          dateStyle: "medium",
                          timeZone: "UTC",
                        })}
                      </th>
                      <td className={td}>{d.signups}</td>
                      <td className={td}>{d.generations}</td>
                      {revenueColumns.map((c) => (
                        <td key={`${c.provider}:${c.currency}`} className={td}>
                          {money(revenueOf(d.revenue, c.provider, c.currency), c.currency)}
                        </td>
                      ))}
                      <td className={td}>{d.creditsGranted}</td>
                      <td className={td}>{d.creditsSpent}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
          <section aria-labelledby="admin-failures-h">
            <h2 id="admin-failures-h" className="text-lg font-semibold">
              {t("overview.failureByEffect")}
            </h2>
            <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t("overview.rateNote")}</p>
            {data.effects.length ? (
              <div className="overflow-x-auto">
                <table className="mt-2 w-full min-w-[28rem] text-sm tabular-nums">
                  <thead>
                    <tr className="border-b border-zinc-200 dark:border-zinc-800">
                      <th className={th}>{t("overview.effect")}</th>
                      <th className={th}>{t("overview.total")}</th>
                      <th className={th}>{t("overview.engineErrors")}</th>
                      <th className={th}>{t("overview.refused")}</th>
                      <th className={th}>{t("overview.rate")}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.effects.map((e) => (
                      <tr key={e.effectId} className="border-b border-zinc-100 dark:border-zinc-900">
                        <th scope="row" className={th}>
                          {names[e.effectId] ?? e.effectId}
                        </th>
                        <td className={td}>{e.total}</td>
                        <td className={td}>{e.failed}</td>
                        <td className={td}>{e.refused}</td>
                        <td className={td}>
                          {e.failureRate === null
                            ? t("none")
                            : `${format.number(e.failureRate, { style: "percent", maximumFractionDigits: 1 })} (${e.failed}/${e.judged})`}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            ) : (
              <p className="mt-2 text-sm">{t("none")}</p>
            )}
          </section>
        </>
      )}
    </div>
  );
}
