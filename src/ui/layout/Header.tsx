"use client";
import { useTranslations } from "next-intl";
import { Link, useRouter } from "@/i18n/navigation";
import { refreshAccount, useAccount } from "@/ui/account/account-store";
import { signOut } from "@/ui/auth/auth-api";
import { LocaleSwitcher } from "./LocaleSwitcher";

/** Site header: brand, navigation, credit balance or sign-in, language. */
export function Header() {
  const t = useTranslations("common");
  const account = useAccount();
  const router = useRouter();
  return (
    <header className="border-b border-zinc-200 dark:border-zinc-800">
      <nav
        className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3"
        aria-label="Main"
      >
        <Link href="/" className="text-lg font-bold tracking-tight text-violet-700 dark:text-violet-400">
          {t("brand")}
        </Link>
        <Link href="/nano-banana-lora" className="text-sm hover:underline">
          {t("effects")}
        </Link>
        <Link href="/pricing" className="text-sm hover:underline">
          {t("pricing")}
        </Link>
        <div className="ms-auto flex items-center gap-3">
          {account.status === "signedIn" ? (
            <>
              <Link
                href="/account"
                className="rounded-full bg-violet-100 px-3 py-1 text-sm font-medium text-violet-800 dark:bg-violet-900/40 dark:text-violet-200"
                data-testid="header-balance"
              >
                {t("credits", { count: account.balance ?? 0 })}
              </Link>
              <button
                type="button"
                className="text-sm hover:underline"
                onClick={async () => {
                  await signOut();
                  await refreshAccount();
                  router.push("/");
                }}
              >
                {t("signOut")}
              </button>
            </>
          ) : account.status === "signedOut" ? (
            <>
              <Link href="/sign-in" className="text-sm hover:underline">
                {t("signIn")}
              </Link>
              <Link
                href="/sign-up"
                className="rounded-lg bg-violet-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-violet-700"
              >
                {t("signUp")}
              </Link>
            </>
          ) : (
            <span className="h-7 w-24" aria-hidden />
          )}
          <LocaleSwitcher />
        </div>
      </nav>
    </header>
  );
}
