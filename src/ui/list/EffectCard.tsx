import { getImageProps } from "next/image";
import { useTranslations } from "next-intl";
import { Link } from "@/i18n/navigation";

/** What a card shows of an effect: serializable, so server and client grids share it. */
export interface CardEffect {
  id: string;
  href: string;
  title: string;
  isHot?: boolean;
  isNew?: boolean;
  /** Its first example pair (rendered by our engine), when it has one. */
  before?: string;
  after?: string;
}

export const CARD_SIZES =
  "(min-width: 1280px) 240px, (min-width: 1024px) 23vw, (min-width: 640px) 30vw, 46vw";

/**
 * One effect in a grid: its example's result, with a strip of the original photo along the
 * start edge; hovering or focusing the card reveals the whole original (pure CSS, so it costs
 * no JavaScript). Both images fill a square box: nothing moves when they load or swap.
 */
export function EffectCard({
  effect,
  eager,
  pictureLater,
}: {
  effect: CardEffect;
  eager?: boolean;
  /** Its pictures are not asked for yet (the list's later cards, until the page has loaded). */
  pictureLater?: boolean;
}) {
  const t = useTranslations("common");
  const tf = useTranslations("front");
  const hasPair = Boolean(effect.before && effect.after);
  const pair = hasPair && !pictureLater ? { before: effect.before!, after: effect.after! } : null;
  const loading = eager ? "eager" : "lazy";
  // Above the fold the example files (640 px WebP, 10-40 kB) are served as they are: a cold
  // image optimizer would otherwise delay the largest paint. Below it they are resized.
  const unoptimized = Boolean(eager);
  // next/image's sizing (srcset, sizes, lazy loading, a box filling the square) as plain props.
  // The original under the strip never competes with the result for the first paint: it is
  // lazy even on the first cards (in view, it still loads right after layout).
  const imageProps = (src: string, lazy = false) =>
    getImageProps({
      src,
      alt: "",
      fill: true,
      sizes: CARD_SIZES,
      loading: lazy ? "lazy" : loading,
      unoptimized,
    }).props;
  return (
    <Link
      href={effect.href}
      // Up to 40 cards: prefetching the ones in view cost the phone a request and a render
      // each while the page loads, for a page that is rendered per request anyway.
      prefetch={false}
      className="group flex h-full flex-col overflow-hidden rounded-xl border border-zinc-200 bg-white shadow-sm transition hover:shadow-md focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-violet-600 dark:border-zinc-800 dark:bg-zinc-900"
      data-testid="effect-card"
      data-effect={effect.id}
    >
      <div className="relative aspect-square bg-gradient-to-br from-violet-100 to-amber-50 dark:from-violet-950 dark:to-zinc-900">
        {pair ? (
          <>
            {/* eslint-disable-next-line @next/next/no-img-element -- next/image's props (srcset, sizes) on a plain img: nothing to hydrate per card */}
            <img
              {...imageProps(pair.after)}
              {...(eager ? { fetchPriority: "high" as const } : {})}
              className="object-cover"
            />
            {/* The original: a strip at the start edge, the whole image on hover or focus. */}
            {/* eslint-disable-next-line @next/next/no-img-element -- as above */}
            <img
              {...imageProps(pair.before, true)}
              className="object-cover transition-[clip-path] duration-300 [clip-path:inset(0_72%_0_0)] group-hover:[clip-path:inset(0)] group-focus-visible:[clip-path:inset(0)] motion-reduce:transition-none rtl:[clip-path:inset(0_0_0_72%)] rtl:group-hover:[clip-path:inset(0)] rtl:group-focus-visible:[clip-path:inset(0)]"
              data-testid="card-before"
            />
            <span
              aria-hidden
              className="absolute inset-y-0 start-[28%] w-0.5 bg-white/90 shadow transition-opacity group-hover:opacity-0 group-focus-visible:opacity-0"
            />
            <span
              aria-hidden
              className="absolute bottom-2 start-2 rounded bg-black/65 px-1.5 py-0.5 text-[11px] font-medium text-white"
            >
              {tf("card.before")}
            </span>
            <span
              aria-hidden
              className="absolute bottom-2 end-2 rounded bg-black/65 px-1.5 py-0.5 text-[11px] font-medium text-white transition-opacity group-hover:opacity-0 group-focus-visible:opacity-0"
            >
              {tf("card.after")}
            </span>
          </>
        ) : hasPair ? null : (
          <span aria-hidden className="absolute inset-0 grid place-items-center text-4xl text-violet-400">
            ✦
          </span>
        )}
        <div className="absolute start-2 top-2 flex gap-1">
          {effect.isHot ? (
            <span className="rounded-full bg-red-700 px-2 py-0.5 text-xs font-semibold text-white">
              {t("hot")}
            </span>
          ) : null}
          {effect.isNew ? (
            <span className="rounded-full bg-blue-700 px-2 py-0.5 text-xs font-semibold text-white">
              {t("new")}
            </span>
          ) : null}
        </div>
      </div>
      <p className="px-3 py-2 text-sm font-medium">
        {effect.title}
        {hasPair ? <span className="sr-only"> ({tf("card.pairHint")})</span> : null}
      </p>
    </Link>
  );
}
