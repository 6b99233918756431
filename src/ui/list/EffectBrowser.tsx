"use client";
import { useLocale, useTranslations } from "next-intl";
import { startTransition, useDeferredValue, useEffect, useId, useMemo, useState } from "react";
import { EFFECT_CATEGORIES, type EffectCategory } from "@/core/effect-definition";
import { Link } from "@/i18n/navigation";
import { EffectCard } from "./EffectCard";
import type { ListEffect } from "./card-data";
import { matchesQuery } from "./search";

/** Cards whose pictures load with the page (a phone's first screen, a desktop's first row). */
const FIRST_PICTURES = 6;

/**
 * The list page's effects with a search box (translated title and description) and
 * category chips. The chips are links (`?category=`), so a category can be linked to and
 * works without JavaScript; with it they filter at once and keep the address in step.
 */
export function EffectBrowser({
  effects,
  initialCategory,
}: {
  effects: ListEffect[];
  initialCategory: EffectCategory | null;
}) {
  const t = useTranslations("front");
  const locale = useLocale();
  const [category, setCategory] = useState<EffectCategory | null>(initialCategory);
  const [query, setQuery] = useState("");
  const deferredQuery = useDeferredValue(query);
  const searchId = useId();
  // The first cards' pictures load with the page; the others only once it has loaded. Lazy
  // loading alone fetches every card within a screen or two of the viewport at once: on a
  // phone on a slow line, 40 pictures (about 350 kB) sharing the line with the first card's.
  const [settled, setSettled] = useState(false);
  useEffect(() => {
    let idle = 0;
    // A transition: React renders the later cards' pictures in slices between other work,
    // not as one long task while the phone is still busy with the page.
    const go = () => {
      idle = window.setTimeout(() => startTransition(() => setSettled(true)), 200);
    };
    if (document.readyState === "complete") go();
    else window.addEventListener("load", go, { once: true });
    return () => {
      window.removeEventListener("load", go);
      window.clearTimeout(idle);
    };
  }, []);
  const shown = useMemo(
    () =>
      effects.filter((e) => (!category || e.category === category) && matchesQuery(e, deferredQuery, locale)),
    [effects, category, deferredQuery, locale],
  );

  const choose = (next: EffectCategory | null) => (event: React.MouseEvent<HTMLAnchorElement>) => {
    // A modified click (new tab, new window) keeps the link's own behaviour.
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || event.button !== 0) return;
    event.preventDefault();
    setCategory(next);
    const url = new URL(window.location.href);
    if (next) url.searchParams.set("category", next);
    else url.searchParams.delete("category");
    window.history.replaceState(window.history.state, "", url);
  };

  const chip =
    "inline-flex min-h-9 items-center rounded-full border px-3.5 py-1.5 text-sm font-medium transition focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-violet-600";
  const chipOff =
    "border-zinc-300 text-zinc-800 hover:border-violet-500 dark:border-zinc-700 dark:text-zinc-200 dark:hover:border-violet-400";
  const chipOn =
    "border-violet-700 bg-violet-700 text-white dark:border-violet-400 dark:bg-violet-400 dark:text-zinc-950";

  return (
    <div>
      <div className="flex flex-col gap-4 md:flex-row md:items-center md:justify-between">
        <nav aria-label={t("search.categoriesLabel")}>
          <ul className="flex flex-wrap gap-2">
            {[null, ...EFFECT_CATEGORIES].map((c) => (
              <li key={c ?? "all"}>
                <Link
                  href={c ? { pathname: "/nano-banana-lora", query: { category: c } } : "/nano-banana-lora"}
                  scroll={false}
                  // A chip filters this page in place: nothing to fetch ahead of a click.
                  prefetch={false}
                  aria-current={category === c ? "page" : undefined}
                  className={`${chip} ${category === c ? chipOn : chipOff}`}
                  onClick={choose(c)}
                  data-testid={`category-${c ?? "all"}`}
                >
                  {t(`categories.${c ?? "all"}`)}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="md:w-80">
          <label htmlFor={searchId} className="mb-1 block text-sm font-medium">
            {t("search.label")}
          </label>
          <input
            id={searchId}
            type="search"
            value={query}
            onChange={(e) => setQuery(e.target.value.slice(0, 100))}
            placeholder={t("search.placeholder")}
            autoComplete="off"
            maxLength={100}
            className="w-full rounded-lg border border-zinc-300 bg-white px-3 py-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
            data-testid="effect-search"
          />
        </div>
      </div>
      <p
        role="status"
        aria-live="polite"
        className="mt-4 text-sm text-zinc-600 dark:text-zinc-400"
        data-testid="effect-count"
      >
        {t("search.results", { count: shown.length })}
      </p>
      {shown.length ? (
        <ul className="mt-3 grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-4 xl:grid-cols-5">
          {shown.map((e, i) => (
            <li key={e.id}>
              <EffectCard effect={e} eager={i < 2} pictureLater={!settled && i >= FIRST_PICTURES} />
            </li>
          ))}
        </ul>
      ) : (
        <div className="mt-6 rounded-xl border border-dashed border-zinc-300 p-8 text-center dark:border-zinc-700">
          <p>{t("search.empty")}</p>
          <button
            type="button"
            className="mt-3 rounded-lg bg-violet-700 px-4 py-2 text-sm font-medium text-white hover:bg-violet-800"
            onClick={() => {
              setQuery("");
              setCategory(null);
              const url = new URL(window.location.href);
              url.searchParams.delete("category");
              window.history.replaceState(window.history.state, "", url);
            }}
          >
            {t("search.clear")}
          </button>
        </div>
      )}
    </div>
  );
}
