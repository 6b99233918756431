"use client";
import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";

/** One placeholder per pending image, with the time elapsed. */
export function PendingCard({ index, startedAt }: { index: number; startedAt: number }) {
  const t = useTranslations("results");
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(id);
  }, []);
  const seconds = Math.max(0, Math.floor((now - startedAt) / 1000));
  return (
    <div
      className="flex aspect-square flex-col items-center justify-center rounded-xl border border-zinc-200 bg-zinc-100 motion-safe:animate-pulse dark:border-zinc-800 dark:bg-zinc-900"
      role="status"
      data-testid="pending-card"
    >
      <span className="text-sm font-medium">{t("pending", { n: index + 1 })}</span>
      <span className="mt-1 text-xs tabular-nums text-zinc-600 dark:text-zinc-400">
        {t("elapsed", { seconds })}
      </span>
    </div>
  );
}
