import Image from "next/image";
import { useTranslations } from "next-intl";
import type { Effect } from "@/core/catalogue";
import { Link } from "@/i18n/navigation";
import { realExamples } from "@/ui/effect/examples";

/** One effect in a grid: thumbnail (its first example), title, hot/new badges. */
export function EffectCard({
  effect,
  title,
  priority,
}: {
  effect: Effect;
  title: string;
  priority?: boolean;
}) {
  const t = useTranslations("common");
  const thumb = realExamples(effect)[0]?.after;
  return (
    <Link
      href={effect.href}
      className="group block overflow-hidden rounded-xl border border-zinc-200 bg-white shadow-sm transition hover:shadow-md focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600 dark:border-zinc-800 dark:bg-zinc-900"
    >
      <div className="relative aspect-square bg-gradient-to-br from-violet-100 to-amber-50 dark:from-violet-950 dark:to-zinc-900">
        {thumb ? (
          <Image
            src={thumb}
            alt=""
            fill
            sizes="(min-width: 1024px) 20vw, (min-width: 640px) 30vw, 45vw"
            className="object-cover transition group-hover:scale-[1.02]"
            priority={priority}
          />
        ) : (
          <span aria-hidden className="absolute inset-0 grid place-items-center text-4xl text-violet-400">
            ✦
          </span>
        )}
        <div className="absolute start-2 top-2 flex gap-1">
          {effect.isHot ? (
            <span className="rounded-full bg-red-600 px-2 py-0.5 text-xs font-semibold text-white">
              {t("hot")}
            </span>
          ) : null}
          {effect.isNew ? (
            <span className="rounded-full bg-blue-600 px-2 py-0.5 text-xs font-semibold text-white">
              {t("new")}
            </span>
          ) : null}
        </div>
      </div>
      <p className="px-3 py-2 text-sm font-medium">{title}</p>
    </Link>
  );
}
