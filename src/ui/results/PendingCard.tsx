"use client";
import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import type { TaskProgress } from "@/ui/effect/task-client";

/**
 * One placeholder per pending image: where the backend says so, its queue position or its
 * steps (with a progress bar), and about how long is left from recent renders of the
 * effect; otherwise the time elapsed.
 */
export function PendingCard({
  index,
  startedAt,
  progress,
  progressAt,
}: {
  index: number;
  startedAt: number;
  progress?: TaskProgress;
  progressAt?: number;
}) {
  const t = useTranslations("results");
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(id);
  }, []);
  const seconds = Math.max(0, Math.floor((now - startedAt) / 1000));
  const left =
    progress?.etaSeconds !== undefined
      ? Math.max(1, progress.etaSeconds - Math.floor((now - (progressAt ?? now)) / 1000))
      : undefined;
  const steps = progress?.max ? { value: progress.value ?? 0, max: progress.max } : undefined;
  const queued = progress?.queuePosition !== undefined && progress.queuePosition > 0 && !steps?.value;
  return (
    <div
      className="flex aspect-square flex-col items-center justify-center rounded-xl border border-zinc-200 bg-zinc-100 px-3 text-center motion-safe:animate-pulse dark:border-zinc-800 dark:bg-zinc-900"
      role="status"
      data-testid="pending-card"
    >
      <span className="text-sm font-medium">{t("pending", { n: index + 1 })}</span>
      {queued ? (
        <span className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
          {t("queuePosition", { n: progress!.queuePosition! })}
        </span>
      ) : steps && steps.value > 0 ? (
        <>
          <span className="mt-1 text-xs tabular-nums text-zinc-600 dark:text-zinc-400">
            {t("progressSteps", steps)}
          </span>
          <progress
            className="mt-2 h-1.5 w-3/4 accent-zinc-700"
            value={steps.value}
            max={steps.max}
            aria-label={t("progressSteps", steps)}
          />
        </>
      ) : null}
      <span className="mt-1 text-xs tabular-nums text-zinc-600 dark:text-zinc-400">
        {left !== undefined ? t("eta", { seconds: left }) : t("elapsed", { seconds })}
      </span>
    </div>
  );
}
