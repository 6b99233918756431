"use client";
import { useFormatter, useTranslations } from "next-intl";
import { useMemo, useState } from "react";
import { field, td, th } from "./admin-api";
import { LoadState } from "./Status";
import { TimeChart } from "./TimeChart";
import { useAdminData } from "./use-load";

interface Overview {
  currency: string;
  days: Array<{
    day: string;
    signups: number;
    generations: number;
    failed: number;
    revenueTest: number;
    revenueStripe: number;
    creditsGranted: number;
    creditsSpent: number;
  }>;
  effects: Array<{ effectId: string; total: number; failed: number; failureRate: number }>;
}

const PERIODS = [7, 30, 90] as const;

/** Sign-ups, generations, revenue and credits per day, as charts and a table; failures per effect. */
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
      revenue: [
        { label: t("overview.revenueTest"), values: col("revenueTest"), color: "#a1a1aa" },
        { label: t("overview.revenueStripe"), values: col("revenueStripe"), color: "#16a34a" },
      ],
      credits: [
        { label: t("overview.creditsGranted"), values: col("creditsGranted"), color: "#d97706" },
        { label: t("overview.creditsSpent"), values: col("creditsSpent"), color: "#dc2626" },
      ],
    };
  }, [data, t]);
  const money = (n: number) =>
    format.number(n, { style: "currency", currency: (data?.currency ?? "usd").toUpperCase() });

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
            <TimeChart
              title={t("overview.revenue", { currency: data.currency.toUpperCase() })}
              days={charts.days}
              series={charts.revenue}
              bars
            />
            <TimeChart title={t("overview.credits")} days={charts.days} series={charts.credits} />
          </div>
          <details className="rounded-xl border border-zinc-200 p-3 dark:border-zinc-800">
            <summary className="cursor-pointer text-sm font-semibold">{t("overview.tableSummary")}</summary>
            <div className="mt-2 overflow-x-auto">
              <table className="w-full min-w-[40rem] text-sm tabular-nums">
                <thead>
                  <tr className="border-b border-zinc-200 dark:border-zinc-800">
                    <th className={th}>{t("overview.day")}</th>
                    <th className={th}>{t("overview.signups")}</th>
                    <th className={th}>{t("overview.generations")}</th>
                    <th className={th}>{t("overview.revenueTest")}</th>
                    <th className={th}>{t("overview.revenueStripe")}</th>
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
                      <td className={td}>{money(d.revenueTest)}</td>
                      <td className={td}>{money(d.revenueStripe)}</td>
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
            {data.effects.length ? (
              <div className="overflow-x-auto">
                <table className="mt-2 w-full min-w-[28rem] text-sm tabular-nums">
                  <thead>
                    <tr className="border-b border-zinc-200 dark:border-zinc-800">
                      <th className={th}>{t("overview.effect")}</th>
                      <th className={th}>{t("overview.total")}</th>
                      <th className={th}>{t("overview.failed")}</th>
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
                        <td className={td}>
                          {format.number(e.failureRate, { style: "percent", maximumFractionDigits: 1 })}
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
