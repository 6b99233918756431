"use client";
import { useTranslations } from "next-intl";
import { OUTPAINT_MAX_SIDE, outpaintSize, type OutpaintEdge } from "@/core/catalogue-constants";

/**
 * What each uploaded photo becomes with the chosen edges: its size, and, past the largest
 * picture the effect makes, that the photo is scaled to fit: said before Create is pressed.
 */
export function OutpaintSizes({
  assets,
  edges,
}: {
  assets: ReadonlyArray<{ id: string; width?: number; height?: number }>;
  edges: readonly OutpaintEdge[];
}) {
  const t = useTranslations();
  const sized = assets.filter((a) => a.width && a.height);
  if (!sized.length || !edges.length) return null;
  return (
    <ul className="mt-2 space-y-0.5 text-xs text-zinc-600 dark:text-zinc-400" aria-live="polite">
      {sized.map((a, i) => {
        const out = outpaintSize(a.width!, a.height!, edges);
        return (
          <li key={a.id} data-testid="outpaint-size">
            {t("effect.outpaintResult", { n: i + 1, width: out.width, height: out.height })}
            {out.scaled ? <> {t("effect.outpaintScaled", { max: OUTPAINT_MAX_SIDE })}</> : null}
          </li>
        );
      })}
    </ul>
  );
}
