"use client";
import { useFormatter, useTranslations } from "next-intl";
import type { EngineStats } from "@/core/admin/engines";
import { card } from "./admin-api";
import { LoadState } from "./Status";
import { useAdminData } from "./use-load";

/**
 * Each configured engine: breaker, today's spend against its cap, last hour's errors (refused
 * inputs apart: they are not the engine's errors) and speed.
 */
export function EnginesPanel() {
  const t = useTranslations("admin");
  const format = useFormatter();
  const { data, loading, error, reload } = useAdminData<{ engines: EngineStats[] }>("/engines");
  if (!data) return <LoadState loading={loading} error={error} onRetry={reload} />;
  const money = (n: number) => format.number(n, { maximumFractionDigits: 4 });
  return (
    <div>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t("engines.note")}</p>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t("overview.rateNote")}</p>
      <ul className="mt-3 grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
        {data.engines.map((e) => (
          <li key={e.id} className={card} data-testid={`engine-${e.id}`}>
            <h2 className="text-lg font-semibold">
              {e.id}
              {e.selfHosted ? (
                <span className="ms-2 rounded bg-zinc-100 px-2 py-0.5 text-xs font-normal dark:bg-zinc-800">
                  {t("engines.selfHosted")}
                </span>
              ) : null}
            </h2>
            <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
              <dt className="text-zinc-600 dark:text-zinc-400">{t("engines.breaker")}</dt>
              <dd className={e.breaker === "open" ? "font-semibold text-red-700 dark:text-red-400" : ""}>
                {t(`engines.breaker_${e.breaker ?? "none"}`)}
              </dd>
              <dt className="text-zinc-600 dark:text-zinc-400">{t("engines.spend")}</dt>
              <dd>
                {money(e.spentToday)} / {e.dailyCap === null ? t("engines.noCap") : money(e.dailyCap)}
              </dd>
              <dt className="text-zinc-600 dark:text-zinc-400">{t("engines.images")}</dt>
              <dd>{format.number(e.imagesToday)}</dd>
              <dt className="text-zinc-600 dark:text-zinc-400">{t("engines.errorRate")}</dt>
              <dd>
                {e.lastHour.errorRate === null
                  ? t("none")
                  : `${format.number(e.lastHour.errorRate, { style: "percent", maximumFractionDigits: 1 })} (${e.lastHour.failed}/${e.lastHour.judged})`}
              </dd>
              <dt className="text-zinc-600 dark:text-zinc-400">{t("engines.refused")}</dt>
              <dd>{format.number(e.lastHour.refused)}</dd>
              <dt className="text-zinc-600 dark:text-zinc-400">{t("engines.median")}</dt>
              <dd>
                {e.lastHour.medianSeconds === null
                  ? t("none")
                  : t("tasks.seconds", {
                      s: format.number(e.lastHour.medianSeconds, { maximumFractionDigits: 1 }),
                    })}
              </dd>
            </dl>
          </li>
        ))}
      </ul>
    </div>
  );
}
