import { useTranslations } from "next-intl";

export function Footer() {
  const t = useTranslations("common");
  return (
    <footer className="mt-16 border-t border-zinc-200 py-8 text-center text-sm text-zinc-600 dark:border-zinc-800 dark:text-zinc-400">
      <p>{t("footer")}</p>
      <p className="mt-1">© photofx</p>
    </footer>
  );
}
