import { useTranslations } from "next-intl";
import { Link } from "@/i18n/navigation";

/** Site footer: the legal pages, contact, and the main sections. */
export function Footer() {
  const t = useTranslations("common");
  const tf = useTranslations("front");
  const link = "hover:underline underline-offset-2";
  return (
    <footer className="mt-16 border-t border-zinc-200 py-8 text-sm text-zinc-700 dark:border-zinc-800 dark:text-zinc-300">
      <div className="mx-auto flex max-w-7xl flex-col gap-6 px-4 md:flex-row md:items-start md:justify-between">
        <div>
          <p className="font-bold text-violet-800 dark:text-violet-300">{t("brand")}</p>
          <p className="mt-1 max-w-md">{t("footer")}</p>
        </div>
        <nav aria-label={tf("footer.label")}>
          <ul className="flex flex-wrap gap-x-6 gap-y-2" data-testid="footer-links">
            <li>
              <Link href="/nano-banana-lora" className={link}>
                {tf("footer.effects")}
              </Link>
            </li>
            <li>
              <Link href="/pricing" className={link}>
                {t("pricing")}
              </Link>
            </li>
            <li>
              <Link href="/privacy" className={link}>
                {tf("footer.privacy")}
              </Link>
            </li>
            <li>
              <Link href="/terms" className={link}>
                {tf("footer.terms")}
              </Link>
            </li>
            <li>
              <Link href="/contact" className={link}>
                {tf("footer.contact")}
              </Link>
            </li>
          </ul>
        </nav>
      </div>
      <p className="mx-auto mt-6 max-w-7xl px-4 text-zinc-600 dark:text-zinc-400">© photofx</p>
    </footer>
  );
}
