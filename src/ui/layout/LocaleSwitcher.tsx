"use client";
import { useLocale, useTranslations } from "next-intl";
import { useParams } from "next/navigation";
import { useTransition } from "react";
import { usePathname, useRouter } from "@/i18n/navigation";
import { LOCALE_NAMES, LOCALES, type Locale } from "@/i18n/locales";

/** Switches language and keeps the current page. */
export function LocaleSwitcher() {
  const t = useTranslations("common");
  const locale = useLocale();
  const router = useRouter();
  const pathname = usePathname();
  const params = useParams();
  const [pending, startTransition] = useTransition();
  return (
    <label className="flex items-center gap-1 text-sm">
      <span className="sr-only">{t("language")}</span>
      <select
        className="rounded-md border border-zinc-300 bg-transparent px-2 py-1 text-sm dark:border-zinc-700"
        value={locale}
        disabled={pending}
        data-testid="locale-switcher"
        onChange={(e) => {
          const next = e.target.value as Locale;
          startTransition(() => {
            // @ts-expect-error -- params match the current route's dynamic segments
            router.replace({ pathname, params }, { locale: next });
          });
        }}
      >
        {LOCALES.map((l) => (
          <option key={l} value={l} lang={l === "tw" ? "zh-Hant" : l === "zh" ? "zh-Hans" : l}>
            {LOCALE_NAMES[l]}
          </option>
        ))}
      </select>
    </label>
  );
}
