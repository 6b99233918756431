import { useTranslations } from "next-intl";
import { Link } from "@/i18n/navigation";

/** Localized not-found page (unknown paths and unknown effect ids). */
export default function NotFound() {
  const t = useTranslations("common");
  return (
    <main className="mx-auto max-w-xl px-6 py-24 text-center">
      <h1 className="text-3xl font-bold">{t("notFoundTitle")}</h1>
      <p className="mt-4 text-zinc-600 dark:text-zinc-400">{t("notFoundBody")}</p>
      <Link
        href="/nano-banana-lora"
        className="mt-8 inline-block rounded-lg bg-violet-600 px-5 py-2.5 font-medium text-white hover:bg-violet-700"
      >
        {t("browseEffects")}
      </Link>
    </main>
  );
}
