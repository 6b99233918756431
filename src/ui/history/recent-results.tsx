"use client";
import { useTranslations } from "next-intl";
import { useEffect, useRef } from "react";
import { Link } from "@/i18n/navigation";
import type { ResultImage } from "@/ui/effect/use-generation";
import { fetchHistory, zipUrl, type HistoryItem } from "./history-api";

/** How many of the user's last results of an effect its page shows again after a reload. */
export const RECENT_RESULTS = 8;

/** A stored result as the effect page's results area shows it. */
export function toResultImage(item: HistoryItem): ResultImage {
  return {
    taskId: item.taskId,
    url: item.url,
    prompt: item.prompt,
    seed: item.seed,
    createdAt: item.createdAt,
    provider: item.provider,
    model: item.model,
    ...(item.batchSize > 1 ? { zipUrl: zipUrl({ batch: item.batchId }) } : {}),
  };
}

/** The stored results after the ones already shown (a result made meanwhile is not shown twice). */
export function mergeRecent(shown: ResultImage[], stored: ResultImage[]): ResultImage[] {
  const known = new Set(shown.map((r) => r.taskId));
  return [...shown, ...stored.filter((r) => !known.has(r.taskId))];
}

/**
 * Loads the signed-in user's last results of an effect once (they stay across reloads) and
 * hands them to `add`. Nothing is loaded for a visitor who is not signed in.
 */
export function useRecentResults(
  effectId: string,
  signedIn: boolean,
  add: (stored: ResultImage[]) => void,
): void {
  const addRef = useRef(add);
  addRef.current = add;
  useEffect(() => {
    if (!signedIn) return;
    let live = true;
    fetchHistory({ effect: effectId, limit: RECENT_RESULTS })
      .then((page) => {
        if (live) addRef.current(page.items.map(toResultImage));
      })
      .catch(() => {
        // The page works without them: the history page lists every result.
      });
    return () => {
      live = false;
    };
  }, [effectId, signedIn]);
}

/**
 * Above the effect page's results: the newest batch's ZIP (when it has several results) and
 * the way to every result in "My creations".
 */
export function ResultsToolbar({ results }: { results: ResultImage[] }) {
  const t = useTranslations("history");
  if (results.length === 0) return null;
  const zip = results[0]?.zipUrl;
  const count = zip ? results.filter((r) => r.zipUrl === zip).length : 0;
  return (
    <div className="mb-3 flex flex-wrap items-center gap-x-4 gap-y-2 text-sm">
      {zip && count > 1 ? (
        <a
          href={zip}
          download
          className="rounded-lg border border-zinc-300 px-3 py-1.5 font-medium hover:bg-zinc-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600 dark:border-zinc-700 dark:hover:bg-zinc-800"
          data-testid="batch-zip"
        >
          {t("downloadAll", { count })}
        </a>
      ) : null}
      <Link href="/history" className="font-medium text-violet-700 hover:underline dark:text-violet-300">
        {t("seeAll")}
      </Link>
    </div>
  );
}
