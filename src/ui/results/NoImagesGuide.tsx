import { useTranslations } from "next-intl";

/** The empty state when an effect has no examples: the three steps. */
export function NoImagesGuide() {
  const t = useTranslations("results");
  return (
    <div className="flex flex-col items-center justify-center rounded-xl border border-dashed border-zinc-300 p-10 text-center dark:border-zinc-700">
      <h3 className="text-lg font-semibold">{t("noImagesTitle")}</h3>
      <ol className="mt-4 space-y-2 text-start">
        {[t("step1"), t("step2"), t("step3")].map((s, i) => (
          <li key={s} className="flex items-center gap-3">
            <span className="grid h-7 w-7 place-items-center rounded-full bg-violet-600 text-sm font-bold text-white">
              {i + 1}
            </span>
            {s}
          </li>
        ))}
      </ol>
    </div>
  );
}
