"use client";
import Autoplay from "embla-carousel-autoplay";
import useEmblaCarousel from "embla-carousel-react";
import { useLocale, useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import type { ExamplePair } from "@/core/catalogue";
import { isRtl } from "@/i18n/locales";

/** Carousel autoplay delay (spec: 3 s). */
export const AUTOPLAY_MS = 3_000;

/**
 * The results panel's empty state: example pairs, autoplaying every 3 s, looping, pausing
 * on hover or interaction. Reduced motion turns autoplay off.
 */
export function ExamplesCarousel({ pairs, title }: { pairs: ExamplePair[]; title: string }) {
  const t = useTranslations("results");
  const tEffect = useTranslations("effect");
  const locale = useLocale();
  const [reduced, setReduced] = useState(false);
  useEffect(() => {
    const mq = window.matchMedia("(prefers-reduced-motion: reduce)");
    setReduced(mq.matches);
  }, []);
  const [ref] = useEmblaCarousel(
    { loop: true, direction: isRtl(locale) ? "rtl" : "ltr" },
    reduced ? [] : [Autoplay({ delay: AUTOPLAY_MS, stopOnMouseEnter: true, stopOnInteraction: true })],
  );
  return (
    <section aria-roledescription="carousel" aria-label={tEffect("examplesTitle")}>
      <h3 className="mb-3 text-lg font-semibold">{tEffect("examplesTitle")}</h3>
      <div className="overflow-hidden rounded-xl" ref={ref}>
        <div className="flex">
          {pairs.map((p, i) => (
            <div
              className="grid min-w-0 flex-[0_0_100%] grid-cols-2 gap-2"
              key={p.after}
              aria-roledescription="slide"
            >
              {(["before", "after"] as const).map((which) => (
                <div key={which} className="relative">
                  {/* eslint-disable-next-line @next/next/no-img-element -- small static WebP */}
                  <img
                    src={p[which]}
                    alt={t("exampleAlt", { title, n: i + 1, which: t(which) })}
                    className="aspect-square w-full rounded-lg object-cover"
                    // The first pair is the largest paint of an empty page: load it at once.
                    loading={i === 0 ? "eager" : "lazy"}
                    fetchPriority={i === 0 ? "high" : "auto"}
                  />
                  <span className="absolute start-2 top-2 rounded bg-black/60 px-2 py-0.5 text-xs text-white">
                    {t(which)}
                  </span>
                </div>
              ))}
            </div>
          ))}
        </div>
      </div>
    </section>
  );
}
