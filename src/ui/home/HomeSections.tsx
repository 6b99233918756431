import Image from "next/image";
import { getTranslations } from "next-intl/server";
import { EFFECT_CATEGORIES, EFFECT_CREDITS, EFFECTS, type EffectCategory } from "@/core/catalogue";
import { Link } from "@/i18n/navigation";
import { EffectCard } from "@/ui/list/EffectCard";
import type { ListEffect } from "@/ui/list/card-data";
import type { TrustClaim } from "@/ui/legal/site-facts";
import { engineName } from "@/ui/results/engine-name";

/** One example pair rendered by our engine, ready to show. */
export interface ShowcasePair {
  effectId: string;
  href: string;
  title: string;
  before: string;
  after: string;
  /** Provider id that rendered it (the examples manifest). */
  engine: string;
}

const cta =
  "inline-flex items-center justify-center rounded-lg px-5 py-3 font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-violet-600";

/** A before and an after side by side, labelled, in two fixed square boxes. */
async function Pair({ pair, sizes, preload }: { pair: ShowcasePair; sizes: string; preload?: boolean }) {
  const t = await getTranslations("front");
  // The hero's pair is the largest paint: its files (640 px WebP, 10-40 kB) are served as they
  // are, preloaded, so a cold image optimizer cannot delay it.
  const eager = preload
    ? ({ preload: true, fetchPriority: "high", unoptimized: true } as const)
    : ({ loading: "lazy" } as const);
  return (
    <div className="grid grid-cols-2 gap-1.5">
      {(["before", "after"] as const).map((which) => (
        <div
          key={which}
          className="relative aspect-square overflow-hidden rounded-xl bg-zinc-100 dark:bg-zinc-800"
        >
          <Image
            src={pair[which]}
            alt={t(which === "before" ? "showcase.beforeAlt" : "showcase.afterAlt", { effect: pair.title })}
            fill
            sizes={sizes}
            className="object-cover"
            {...eager}
          />
          <span className="absolute start-2 top-2 rounded bg-black/65 px-2 py-0.5 text-xs font-medium text-white">
            {t(which === "before" ? "card.before" : "card.after")}
          </span>
        </div>
      ))}
    </div>
  );
}

export async function Hero({ pair, signupCredits }: { pair: ShowcasePair | null; signupCredits: number }) {
  const t = await getTranslations("front");
  return (
    <section className="grid items-center gap-10 py-8 lg:grid-cols-2 lg:py-14" aria-labelledby="hero-title">
      <div className="text-center lg:text-start">
        <h1 id="hero-title" className="text-4xl font-bold tracking-tight text-balance sm:text-5xl">
          {t("hero.title")}
        </h1>
        <p className="mx-auto mt-4 max-w-xl text-lg text-zinc-700 lg:mx-0 dark:text-zinc-300">
          {t("hero.subtitle", { credits: EFFECT_CREDITS, count: EFFECTS.length })}
        </p>
        <div className="mt-8 flex flex-wrap justify-center gap-3 lg:justify-start">
          <Link href="/nano-banana-lora" className={`${cta} bg-violet-700 text-white hover:bg-violet-800`}>
            {t("hero.explore")}
          </Link>
          <Link
            href="/sign-up"
            className={`${cta} border border-zinc-300 hover:bg-zinc-50 dark:border-zinc-700 dark:hover:bg-zinc-900`}
          >
            {signupCredits > 0 ? t("hero.signUpCredits", { count: signupCredits }) : t("hero.signUp")}
          </Link>
        </div>
      </div>
      {pair ? (
        <figure className="mx-auto w-full max-w-xl" data-testid="hero-pair">
          <Pair pair={pair} sizes="(min-width: 1024px) 300px, 48vw" preload />
          <figcaption className="mt-2 text-center text-sm text-zinc-600 dark:text-zinc-400">
            <Link href={pair.href} className="font-medium underline-offset-2 hover:underline">
              {pair.title}
            </Link>
          </figcaption>
        </figure>
      ) : null}
    </section>
  );
}

const CHECK = (
  <svg
    aria-hidden
    viewBox="0 0 20 20"
    className="mt-0.5 h-5 w-5 shrink-0 text-emerald-700 dark:text-emerald-400"
  >
    <path fill="currentColor" d="M8.2 14.3 4.4 10.5l1.4-1.4 2.4 2.4 6-6 1.4 1.4z" />
  </svg>
);

/** Claims this configuration makes true (see site-facts.ts): nothing is shown that it makes false. */
export async function TrustBar({ claims, signupCredits }: { claims: TrustClaim[]; signupCredits: number }) {
  const t = await getTranslations("front");
  return (
    <section aria-labelledby="trust-title" className="rounded-2xl bg-zinc-50 px-5 py-6 dark:bg-zinc-900">
      <h2 id="trust-title" className="sr-only">
        {t("trust.title")}
      </h2>
      <ul className="grid gap-x-6 gap-y-3 sm:grid-cols-2 lg:grid-cols-3" data-testid="trust-claims">
        {claims.map((claim) => (
          <li key={claim} className="flex gap-2 text-sm font-medium" data-claim={claim}>
            {CHECK}
            <span>{t(`trust.${claim}`, { credits: EFFECT_CREDITS, count: signupCredits })}</span>
          </li>
        ))}
      </ul>
      <p className="mt-4 text-sm">
        <Link href="/privacy" className="text-violet-800 underline underline-offset-2 dark:text-violet-300">
          {t("trust.privacyLink")}
        </Link>
      </p>
    </section>
  );
}

export async function HowItWorks() {
  const t = await getTranslations("front");
  const steps = [1, 2, 3] as const;
  return (
    <section aria-labelledby="how-title" className="py-14" data-testid="how-it-works">
      <h2 id="how-title" className="text-center text-3xl font-bold">
        {t("how.title")}
      </h2>
      <ol className="mt-8 grid gap-6 md:grid-cols-3">
        {steps.map((n) => (
          <li key={n} className="rounded-2xl border border-zinc-200 p-6 dark:border-zinc-800">
            <span
              aria-hidden
              className="grid h-10 w-10 place-items-center rounded-full bg-violet-100 text-lg font-bold text-violet-800 dark:bg-violet-900/50 dark:text-violet-200"
            >
              {n}
            </span>
            <h3 className="mt-4 text-lg font-semibold">{t(`how.step${n}Title`)}</h3>
            <p className="mt-2 text-zinc-700 dark:text-zinc-300">
              {t(`how.step${n}Body`, { credits: EFFECT_CREDITS })}
            </p>
          </li>
        ))}
      </ol>
    </section>
  );
}

export async function Showcase({
  pairs,
  localEngineName,
}: {
  pairs: ShowcasePair[];
  localEngineName: string;
}) {
  const t = await getTranslations("front");
  if (!pairs.length) return null;
  return (
    <section aria-labelledby="showcase-title" className="py-14" data-testid="showcase">
      <h2 id="showcase-title" className="text-center text-3xl font-bold">
        {t("showcase.title")}
      </h2>
      <p className="mx-auto mt-3 max-w-2xl text-center text-zinc-700 dark:text-zinc-300">
        {t("showcase.subtitle")}
      </p>
      <ul className="mt-8 grid gap-8 md:grid-cols-2">
        {pairs.map((pair) => (
          <li key={pair.effectId}>
            <figure data-testid="showcase-pair">
              <Pair pair={pair} sizes="(min-width: 1280px) 300px, (min-width: 768px) 24vw, 48vw" />
              <figcaption className="mt-2 flex flex-wrap items-baseline justify-between gap-2 text-sm">
                <Link href={pair.href} className="font-semibold underline-offset-2 hover:underline">
                  {pair.title}
                </Link>
                <span className="text-zinc-600 dark:text-zinc-400">
                  {t("showcase.madeBy", { engine: engineName(pair.engine, localEngineName) })}
                </span>
              </figcaption>
            </figure>
          </li>
        ))}
      </ul>
    </section>
  );
}

export async function Featured({ effects, total }: { effects: ListEffect[]; total: number }) {
  const t = await getTranslations("front");
  return (
    <section aria-labelledby="featured-title" className="py-14">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <h2 id="featured-title" className="text-3xl font-bold">
          {t("featured.title")}
        </h2>
        <Link
          href="/nano-banana-lora"
          className="font-medium text-violet-800 underline underline-offset-2 dark:text-violet-300"
        >
          {t("featured.seeAll", { count: total })}
        </Link>
      </div>
      <ul
        className="mt-6 grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-4"
        data-testid="featured-effects"
      >
        {effects.map((e) => (
          <li key={e.id}>
            <EffectCard effect={e} />
          </li>
        ))}
      </ul>
    </section>
  );
}

export async function Categories({ counts }: { counts: Record<EffectCategory, number> }) {
  const t = await getTranslations("front");
  return (
    <section aria-labelledby="categories-title" className="pt-14">
      <h2 id="categories-title" className="text-3xl font-bold">
        {t("categoriesTitle")}
      </h2>
      <ul className="mt-6 grid grid-cols-2 gap-4 md:grid-cols-4">
        {EFFECT_CATEGORIES.map((c) => (
          <li key={c}>
            <Link
              href={{ pathname: "/nano-banana-lora", query: { category: c } }}
              className="block h-full rounded-2xl border border-zinc-200 p-5 transition hover:border-violet-500 hover:shadow-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-violet-600 dark:border-zinc-800"
            >
              <span className="block text-lg font-semibold">{t(`categories.${c}`)}</span>
              <span className="mt-1 block text-sm text-zinc-600 dark:text-zinc-400">
                {t("categoryCount", { count: counts[c] })}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
