"use client";
import { useFormatter, useTranslations } from "next-intl";
import type { ReactNode } from "react";
import { Link } from "@/i18n/navigation";
import type { HistoryItem } from "./history-api";

const base =
  "rounded-md px-2 py-1 text-sm font-medium hover:underline focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600";
const action = `${base} text-violet-700 hover:bg-violet-50 dark:text-violet-300 dark:hover:bg-violet-950/40`;
const danger = `${base} ms-auto text-red-700 hover:bg-red-50 dark:text-red-400 dark:hover:bg-red-950/40`;

/** The look of an action in a history card's bar, for actions added beside these. */
export const historyActionClass = action;

/**
 * One result in "My creations": the image, the effect (in the user's language, linking to
 * its page), the date, and an action bar: download, share, delete, and the batch's ZIP when
 * the submit made several. Further actions (compare with the original, run again) go in
 * `children`, rendered in the same bar.
 */
export function HistoryCard({
  item,
  effectTitle,
  effectHref,
  onDownload,
  onShare,
  onDelete,
  zipHref,
  children,
}: {
  item: HistoryItem;
  effectTitle: string;
  effectHref: string | null;
  onDownload(): void;
  onShare(): void;
  onDelete(): void;
  /** The batch's ZIP, when the batch has more than one result. */
  zipHref?: string;
  children?: ReactNode;
}) {
  const t = useTranslations("history");
  const format = useFormatter();
  const created = new Date(item.createdAt);
  const date = format.dateTime(created, { dateStyle: "medium", timeStyle: "short" });
  return (
    <li
      className="flex flex-col overflow-hidden rounded-xl border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900"
      data-testid="history-item"
      data-id={item.id}
    >
      <a
        href={item.url}
        target="_blank"
        rel="noopener"
        className="block focus-visible:outline focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-violet-600"
      >
        {/* eslint-disable-next-line @next/next/no-img-element -- a private image behind the session */}
        <img
          src={item.url}
          alt={t("imageAlt", { effect: effectTitle, date })}
          width={item.width}
          height={item.height}
          loading="lazy"
          className="aspect-square w-full bg-zinc-100 object-contain dark:bg-zinc-950"
        />
      </a>
      <div className="flex flex-1 flex-col gap-1 px-3 pt-2">
        <p className="text-sm font-semibold">
          {effectHref ? (
            <Link href={effectHref} className="hover:underline" data-testid="history-effect">
              {effectTitle}
            </Link>
          ) : (
            <span data-testid="history-effect">{effectTitle}</span>
          )}
        </p>
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          <time dateTime={item.createdAt}>{date}</time>
          {item.share ? (
            <span className="ms-2 rounded-full bg-emerald-100 px-2 py-0.5 text-emerald-800 dark:bg-emerald-900/40 dark:text-emerald-200">
              {t("sharedBadge")}
            </span>
          ) : null}
        </p>
      </div>
      <div
        className="flex flex-wrap items-center gap-1 px-1.5 pb-2 pt-1"
        role="group"
        aria-label={t("actionsLabel", { effect: effectTitle, date })}
      >
        <button type="button" className={action} onClick={onDownload}>
          {t("download")}
        </button>
        {zipHref ? (
          <a href={zipHref} download className={action} data-testid="history-zip">
            {t("downloadAll", { count: item.batchSize })}
          </a>
        ) : null}
        <button type="button" className={action} onClick={onShare}>
          {item.share ? t("shareManage") : t("share")}
        </button>
        {children}
        <button type="button" className={danger} onClick={onDelete}>
          {t("delete")}
        </button>
      </div>
    </li>
  );
}
