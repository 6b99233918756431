"use client";
import { useTranslations } from "next-intl";
import { useState } from "react";
import { ReactCompareSlider, ReactCompareSliderImage } from "react-compare-slider";
import type { ResultImage } from "@/ui/effect/use-generation";

/** A generated image with view details, download, seed and a before/after toggle. */
export function ResultCard({
  image,
  index,
  onOpen,
  onDetails,
  onDownload,
}: {
  image: ResultImage;
  index: number;
  onOpen(): void;
  onDetails(): void;
  onDownload(): void;
}) {
  const t = useTranslations("results");
  const [compare, setCompare] = useState(false);
  return (
    <figure
      className="overflow-hidden rounded-xl border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900"
      data-testid="result-card"
    >
      {compare && image.sourcePreview ? (
        <ReactCompareSlider
          className="aspect-square"
          itemOne={
            <ReactCompareSliderImage
              src={image.sourcePreview}
              alt={t("originalAlt")}
              style={{ objectFit: "contain" }}
            />
          }
          itemTwo={
            <ReactCompareSliderImage
              src={image.url}
              alt={t("resultAlt", { n: index + 1 })}
              style={{ objectFit: "contain" }}
            />
          }
        />
      ) : (
        <button
          type="button"
          onClick={onOpen}
          className="block w-full focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600"
        >
          {/* eslint-disable-next-line @next/next/no-img-element -- a private image behind the session */}
          <img
            src={image.url}
            alt={t("resultAlt", { n: index + 1 })}
            className="aspect-square w-full bg-zinc-100 object-contain dark:bg-zinc-950"
          />
        </button>
      )}
      <figcaption className="flex flex-wrap items-center gap-2 px-3 py-2 text-sm">
        <button
          type="button"
          className="font-medium text-violet-700 hover:underline dark:text-violet-300"
          onClick={onDetails}
        >
          {t("viewDetails")}
        </button>
        <button
          type="button"
          className="font-medium text-violet-700 hover:underline dark:text-violet-300"
          onClick={onDownload}
        >
          {t("download")}
        </button>
        {image.sourcePreview ? (
          <button
            type="button"
            aria-pressed={compare}
            className="font-medium text-violet-700 hover:underline dark:text-violet-300"
            onClick={() => setCompare((c) => !c)}
          >
            {t("compare")}
          </button>
        ) : null}
        <span
          className="ms-auto text-xs tabular-nums text-zinc-600 dark:text-zinc-400"
          data-testid="result-seed"
        >
          {image.seed !== null ? t("seed", { seed: image.seed }) : ""}
        </span>
      </figcaption>
    </figure>
  );
}
