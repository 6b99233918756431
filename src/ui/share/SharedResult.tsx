import { getTranslations } from "next-intl/server";
import { Link } from "@/i18n/navigation";

/** The public page of a shared result: the image, its effect, and a call to try the effect. */
export async function SharedResult({
  imageUrl,
  width,
  height,
  effectTitle,
  effectHref,
}: {
  imageUrl: string;
  width: number;
  height: number;
  effectTitle: string;
  effectHref: string | null;
}) {
  const t = await getTranslations("history");
  return (
    <main className="mx-auto max-w-3xl px-4 py-8 sm:py-12">
      <h1 className="text-center text-2xl font-bold sm:text-3xl">
        {t("shareHeading", { effect: effectTitle })}
      </h1>
      <figure className="mt-6 overflow-hidden rounded-2xl border border-zinc-200 bg-zinc-100 dark:border-zinc-800 dark:bg-zinc-900">
        {/* eslint-disable-next-line @next/next/no-img-element -- served by our share route, sized by the result */}
        <img
          src={imageUrl}
          alt={t("shareImageAlt", { effect: effectTitle })}
          width={width}
          height={height}
          className="mx-auto max-h-[75vh] w-auto object-contain"
          data-testid="shared-image"
        />
        <figcaption className="px-4 py-3 text-center text-sm text-zinc-600 dark:text-zinc-400">
          {t("shareCaption")}
        </figcaption>
      </figure>
      <div className="mt-8 flex flex-col items-center gap-3 text-center">
        <p className="text-lg">{t("shareCtaText", { effect: effectTitle })}</p>
        <Link
          href={effectHref ?? "/nano-banana-lora"}
          className="rounded-lg bg-violet-600 px-5 py-3 text-base font-semibold text-white hover:bg-violet-700 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-violet-600"
          data-testid="share-cta"
        >
          {t("shareCta", { effect: effectTitle })}
        </Link>
        <Link
          href="/nano-banana-lora"
          className="text-sm text-violet-700 hover:underline dark:text-violet-300"
        >
          {t("shareBrowse")}
        </Link>
      </div>
    </main>
  );
}
