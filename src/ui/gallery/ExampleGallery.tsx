"use client";
import { useLocale, useTranslations } from "next-intl";
import { useState } from "react";
import { ReactCompareSlider, ReactCompareSliderImage } from "react-compare-slider";
import type { ExamplePair } from "@/core/catalogue";
import { isRtl } from "@/i18n/locales";
import { engineName } from "@/ui/results/engine-name";

/**
 * The example gallery: a before/after comparison slider (drag, or arrow keys on the
 * handle), previous/next, dots, and Before/After labels. Effects without rendered examples
 * show a clearly marked placeholder; effects whose examples are withheld say why.
 */
export function ExampleGallery({
  pairs,
  title,
  withheld = false,
}: {
  pairs: ExamplePair[];
  title: string;
  /** No examples on purpose (an edit of a body): the gallery says why instead of "coming soon". */
  withheld?: boolean;
}) {
  const t = useTranslations("results");
  const tEffect = useTranslations("effect");
  const rtl = isRtl(useLocale());
  const [index, setIndex] = useState(0);
  const count = pairs.length;
  const pair = pairs[index];
  return (
    <section className="mt-12" aria-labelledby="examples-heading">
      <h2 id="examples-heading" className="text-2xl font-bold">
        {tEffect("examplesTitle")}
      </h2>
      {pair ? (
        <div className="mx-auto mt-4 max-w-2xl">
          <div className="relative overflow-hidden rounded-2xl">
            <ReactCompareSlider
              className="aspect-square"
              // In a right-to-left page the "before" side is on the right.
              itemOne={
                <ReactCompareSliderImage
                  src={rtl ? pair.after : pair.before}
                  alt={t("exampleAlt", { title, n: index + 1, which: t(rtl ? "after" : "before") })}
                />
              }
              itemTwo={
                <ReactCompareSliderImage
                  src={rtl ? pair.before : pair.after}
                  alt={t("exampleAlt", { title, n: index + 1, which: t(rtl ? "before" : "after") })}
                />
              }
            />
            <span className="pointer-events-none absolute start-3 top-3 z-10 rounded bg-black/60 px-2 py-0.5 text-xs font-medium text-white">
              {t("before")}
            </span>
            <span className="pointer-events-none absolute end-3 top-3 z-10 rounded bg-black/60 px-2 py-0.5 text-xs font-medium text-white">
              {t("after")}
            </span>
          </div>
          {/* One pair: nothing to page through. */}
          <div className={count > 1 ? "mt-3 flex items-center justify-center gap-3" : "hidden"}>
            <button
              type="button"
              className="rounded-full border border-zinc-300 px-3 py-1 text-sm dark:border-zinc-700"
              onClick={() => setIndex((i) => (i - 1 + count) % count)}
              aria-label={t("previous")}
            >
              <span aria-hidden>{rtl ? "→" : "←"}</span>
            </button>
            <div className="flex gap-1">
              {pairs.map((p, i) => (
                <button
                  key={p.after}
                  type="button"
                  onClick={() => setIndex(i)}
                  aria-label={t("goTo", { n: i + 1 })}
                  aria-current={i === index}
                  // A 24 px target around a 10 px dot (WCAG target size).
                  className="grid h-6 w-6 place-items-center rounded-full focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600"
                >
                  <span
                    aria-hidden
                    className={
                      "h-2.5 w-2.5 rounded-full " +
                      (i === index ? "bg-violet-600" : "bg-zinc-300 dark:bg-zinc-700")
                    }
                  />
                </button>
              ))}
            </div>
            <button
              type="button"
              className="rounded-full border border-zinc-300 px-3 py-1 text-sm dark:border-zinc-700"
              onClick={() => setIndex((i) => (i + 1) % count)}
              aria-label={t("next")}
            >
              <span aria-hidden>{rtl ? "←" : "→"}</span>
            </button>
          </div>
          {pair.engine ? (
            <p
              className="mt-2 text-center text-xs text-zinc-600 dark:text-zinc-400"
              data-testid="example-engine"
            >
              {t("madeWith", { engine: engineName(pair.engine, t("engineLocal")) })}
            </p>
          ) : null}
        </div>
      ) : (
        <div
          className="mx-auto mt-4 grid aspect-[2/1] max-w-2xl place-items-center rounded-2xl border-2 border-dashed border-zinc-300 px-6 text-center text-zinc-600 dark:border-zinc-700 dark:text-zinc-400"
          data-testid="examples-placeholder"
        >
          {withheld ? t("withheld") : t("placeholder")}
        </div>
      )}
    </section>
  );
}
