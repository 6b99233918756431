"use client";
import { useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import { Link, usePathname, useRouter } from "@/i18n/navigation";
import { refreshAccount, useAccount } from "@/ui/account/account-store";
import { signOut } from "@/ui/auth/auth-api";
import { LocaleSwitcher } from "./LocaleSwitcher";

/**
 * Site header: brand, navigation, credit balance or sign-in, language. Below 640 px it is one
 * row (brand, balance, a menu button) and the links open in a disclosure panel: Escape or a
 * click elsewhere closes it and gives focus back to the button; opening it focuses its first link.
 */
export function Header() {
  const t = useTranslations("common");
  const th = useTranslations("history");
  const tf = useTranslations("front");
  const tAdmin = useTranslations("admin");
  const account = useAccount();
  const router = useRouter();
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const [openedAt, setOpenedAt] = useState(pathname);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const header = useRef<HTMLElement>(null);

  // A navigation closes the menu (state adjusted during render, React's pattern for derived state).
  if (open && openedAt !== pathname) setOpen(false);

  useEffect(() => {
    if (!open) return;
    panel.current?.querySelector<HTMLElement>("a, button, select")?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    const onPointer = (e: PointerEvent) => {
      if (!header.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [open]);

  const doSignOut = async () => {
    setOpen(false);
    await signOut();
    await refreshAccount();
    router.push("/");
  };
  const close = () => setOpen(false);
  const item = "block rounded-lg px-3 py-3 text-base hover:bg-zinc-100 dark:hover:bg-zinc-900";

  return (
    <header ref={header} className="border-b border-zinc-200 dark:border-zinc-800">
      <nav
        className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3"
        aria-label="Main"
      >
        <Link href="/" className="text-lg font-bold tracking-tight text-violet-700 dark:text-violet-400">
          {t("brand")}
        </Link>
        <Link href="/nano-banana-lora" className="hidden text-sm hover:underline sm:inline">
          {t("effects")}
        </Link>
        <Link href="/pricing" className="hidden text-sm hover:underline sm:inline">
          {t("pricing")}
        </Link>
        <div className="ms-auto flex min-h-8 items-center gap-3">
          {account.status === "signedIn" ? (
            <>
              <Link
                href="/history"
                className="hidden text-sm hover:underline sm:inline"
                data-testid="header-history"
              >
                {th("navLink")}
              </Link>
              {account.isAdmin ? (
                <Link
                  href="/admin"
                  className="hidden text-sm hover:underline sm:inline"
                  data-testid="header-admin"
                >
                  {tAdmin("navLink")}
                </Link>
              ) : null}
              <Link
                href="/account"
                className="rounded-full bg-violet-100 px-3 py-1 text-sm font-medium whitespace-nowrap text-violet-800 dark:bg-violet-900/40 dark:text-violet-200"
                data-testid="header-balance"
              >
                {t("credits", { count: account.balance ?? 0 })}
              </Link>
              <button type="button" className="hidden text-sm hover:underline sm:inline" onClick={doSignOut}>
                {t("signOut")}
              </button>
            </>
          ) : account.status === "signedOut" ? (
            <>
              <Link href="/sign-in" className="hidden text-sm hover:underline sm:inline">
                {t("signIn")}
              </Link>
              <Link
                href="/sign-up"
                className="hidden rounded-lg bg-violet-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-violet-800 sm:inline-block"
              >
                {t("signUp")}
              </Link>
            </>
          ) : (
            <span className="h-7 w-20 sm:w-24" aria-hidden />
          )}
          <div className="hidden sm:block">
            <LocaleSwitcher />
          </div>
          <button
            ref={button}
            type="button"
            className="inline-flex h-10 w-10 items-center justify-center rounded-lg border border-zinc-300 sm:hidden dark:border-zinc-700"
            aria-expanded={open}
            aria-controls="site-menu"
            onClick={() => {
              setOpenedAt(pathname);
              setOpen((o) => !o);
            }}
            data-testid="menu-button"
          >
            <span className="sr-only">{tf("menu.label")}</span>
            <svg
              aria-hidden
              viewBox="0 0 24 24"
              className="h-5 w-5"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
            >
              {open ? <path d="M6 6l12 12M18 6L6 18" /> : <path d="M4 7h16M4 12h16M4 17h16" />}
            </svg>
          </button>
        </div>
      </nav>
      <div
        ref={panel}
        id="site-menu"
        hidden={!open}
        className="border-t border-zinc-200 px-4 pt-2 pb-4 sm:hidden dark:border-zinc-800"
        data-testid="site-menu"
      >
        {open ? (
          <nav aria-label={tf("menu.label")}>
            <ul>
              <li>
                <Link href="/nano-banana-lora" className={item} onClick={close}>
                  {t("effects")}
                </Link>
              </li>
              <li>
                <Link href="/pricing" className={item} onClick={close}>
                  {t("pricing")}
                </Link>
              </li>
              {account.status === "signedIn" ? (
                <>
                  <li>
                    <Link href="/history" className={item} onClick={close}>
                      {th("navLink")}
                    </Link>
                  </li>
                  <li>
                    <Link href="/account" className={item} onClick={close}>
                      {t("account")}
                    </Link>
                  </li>
                  {account.isAdmin ? (
                    <li>
                      <Link href="/admin" className={item} onClick={close}>
                        {tAdmin("navLink")}
                      </Link>
                    </li>
                  ) : null}
                  <li>
                    <button type="button" className={`${item} w-full text-start`} onClick={doSignOut}>
                      {t("signOut")}
                    </button>
                  </li>
                </>
              ) : (
                <>
                  <li>
                    <Link href="/sign-in" className={item} onClick={close}>
                      {t("signIn")}
                    </Link>
                  </li>
                  <li>
                    <Link href="/sign-up" className={item} onClick={close}>
                      {t("signUp")}
                    </Link>
                  </li>
                </>
              )}
            </ul>
            <div className="mt-2 px-3">
              <LocaleSwitcher />
            </div>
          </nav>
        ) : null}
      </div>
    </header>
  );
}
