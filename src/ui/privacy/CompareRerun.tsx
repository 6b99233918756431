"use client";
import { useFormatter, useTranslations } from "next-intl";
import { useEffect, useId, useState } from "react";
import { Modal } from "@/ui/primitives/Modal";
import { useRerun } from "./use-rerun";

interface Originals {
  kept: boolean;
  keptUntil: string | null;
  originals: Array<{ id: string; url: string; width: number; height: number }>;
}

const DEFAULT_ACTION =
  "rounded-md px-2 py-1 text-sm font-medium text-violet-700 hover:bg-violet-50 hover:underline focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600 disabled:cursor-not-allowed disabled:opacity-60 dark:text-violet-300 dark:hover:bg-violet-950/40";

/**
 * Per result, when its original photos are still kept ("Keep my original photos for 30
 * days"): compare before and after, and re-run with the same settings (a new generation
 * through the normal submit: credits, bot-check for the free plan). Renders nothing when the
 * originals are gone. `actionClassName` lets a host bar (the history card) give its look.
 */
export function CompareRerun({
  imageId,
  imageUrl,
  width,
  height,
  actionClassName = DEFAULT_ACTION,
  onRerun,
}: {
  imageId: string;
  imageUrl: string;
  width?: number;
  height?: number;
  actionClassName?: string;
  /** Called with the new task ids after a re-run was accepted. */
  onRerun?(taskIds: string[]): void;
}) {
  const t = useTranslations("privacy");
  const format = useFormatter();
  const sliderId = useId();
  const [data, setData] = useState<Originals | null>(null);
  const [comparing, setComparing] = useState(false);
  const [split, setSplit] = useState(50);
  const { busy, rerun, dialog } = useRerun(imageId, {
    onGone: () => setData({ kept: false, keptUntil: null, originals: [] }),
    onRerun,
  });

  useEffect(() => {
    let live = true;
    void fetch(`/api/results/${encodeURIComponent(imageId)}/originals`, { cache: "no-store" })
      .then(async (r) => (r.ok ? ((await r.json()) as Originals) : null))
      .then((d) => live && setData(d))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [imageId]);

  if (!data?.kept || data.originals.length === 0) return null;
  const first = data.originals[0]!;

  const ratio = width && height ? `${width} / ${height}` : `${first.width} / ${first.height}`;
  return (
    <>
      <button
        type="button"
        className={actionClassName}
        onClick={() => setComparing(true)}
        data-testid="compare-original"
      >
        {t("compare")}
      </button>
      <button
        type="button"
        className={actionClassName}
        onClick={() => void rerun()}
        disabled={busy}
        data-testid="rerun-result"
      >
        {busy ? t("rerunning") : t("rerun")}
      </button>
      <Modal
        open={comparing}
        onOpenChange={setComparing}
        title={t("compareSlider")}
        description={
          data.keptUntil
            ? t("keptUntil", { date: format.dateTime(new Date(data.keptUntil), { dateStyle: "medium" }) })
            : undefined
        }
        closeLabel={t("close")}
        wide
      >
        <div
          className="relative w-full overflow-hidden rounded-lg bg-zinc-100 dark:bg-zinc-950"
          style={{ aspectRatio: ratio }}
          dir="ltr"
        >
          {/* eslint-disable-next-line @next/next/no-img-element -- private images behind the session */}
          <img src={imageUrl} alt={t("after")} className="absolute inset-0 h-full w-full object-contain" />
          {/* eslint-disable-next-line @next/next/no-img-element -- private images behind the session */}
          <img
            src={first.url}
            alt={t("before")}
            className="absolute inset-0 h-full w-full object-contain"
            style={{ clipPath: `inset(0 ${100 - split}% 0 0)` }}
            data-testid="compare-before"
          />
          <div
            aria-hidden
            className="absolute inset-y-0 w-0.5 bg-white shadow"
            style={{ left: `${split}%` }}
          />
          <span className="absolute start-2 top-2 rounded bg-black/60 px-2 py-0.5 text-xs text-white">
            {t("before")}
          </span>
          <span className="absolute end-2 top-2 rounded bg-black/60 px-2 py-0.5 text-xs text-white">
            {t("after")}
          </span>
        </div>
        <label htmlFor={sliderId} className="sr-only">
          {t("compareSlider")}
        </label>
        <input
          id={sliderId}
          type="range"
          min={0}
          max={100}
          value={split}
          onChange={(e) => setSplit(Number(e.target.value))}
          className="mt-3 w-full accent-violet-600"
          dir="ltr"
        />
        {data.originals.length > 1 ? (
          <ul className="mt-3 flex gap-2">
            {data.originals.slice(1).map((o) => (
              <li key={o.id}>
                {/* eslint-disable-next-line @next/next/no-img-element -- private images behind the session */}
                <img src={o.url} alt={t("before")} className="h-16 w-16 rounded object-cover" />
              </li>
            ))}
          </ul>
        ) : null}
      </Modal>
      {dialog}
    </>
  );
}
