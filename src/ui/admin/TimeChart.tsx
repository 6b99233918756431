"use client";
import { useEffect, useRef } from "react";
import type uPlot from "uplot";

export interface ChartSeries {
  label: string;
  values: number[];
  color: string;
}

/**
 * A per-day chart drawn by uPlot (a small, maintained canvas chart library), imported on
 * first use so only the admin page ever loads it. The figures are in the table beside it too
 * (the canvas is decorative for screen readers: `aria-hidden`, with a label on the figure).
 */
export function TimeChart({
  title,
  days,
  series,
  bars = false,
}: {
  title: string;
  /** `YYYY-MM-DD`, UTC. */
  days: string[];
  series: ChartSeries[];
  bars?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let chart: uPlot | null = null;
    let observer: ResizeObserver | null = null;
    let cancelled = false;
    void (async () => {
      const [{ default: UPlot }] = await Promise.all([import("uplot"), import("uplot/dist/uPlot.min.css")]);
      if (cancelled) return;
      const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
      const dark = window.matchMedia?.("(prefers-color-scheme: dark)").matches;
      const axis = { stroke: dark ? "#a1a1aa" : "#52525b", grid: { stroke: dark ? "#27272a" : "#e4e4e7" } };
      const width = () => Math.max(260, el.clientWidth);
      chart = new UPlot(
        {
          width: width(),
          height: 220,
          scales: { x: { time: true } },
          axes: [axis, axis],
          series: [
            {},
            ...series.map((s, i) => ({
              label: s.label,
              stroke: s.color,
              fill: bars ? `${s.color}99` : undefined,
              width: 2,
              ...(bars && UPlot.paths.bars
                ? {
                    paths: UPlot.paths.bars({
                      size: [0.6 / series.length, 40],
                      align: (i === 0 ? -1 : 1) as -1 | 1,
                    }),
                  }
                : {}),
            })),
          ],
        },
        [xs, ...series.map((s) => s.values)],
        el,
      );
      observer = new ResizeObserver(() => chart?.setSize({ width: width(), height: 220 }));
      observer.observe(el);
    })();
    return () => {
      cancelled = true;
      observer?.disconnect();
      chart?.destroy();
    };
  }, [days, series, bars]);
  return (
    <figure className="rounded-xl border border-zinc-200 p-3 dark:border-zinc-800" aria-label={title}>
      <figcaption className="mb-2 text-sm font-semibold">{title}</figcaption>
      <div ref={box} aria-hidden className="min-h-[220px] w-full overflow-hidden" />
    </figure>
  );
}
