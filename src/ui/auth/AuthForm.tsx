"use client";
import { useTranslations } from "next-intl";
import { safeNext } from "./safe-next";
import { useState } from "react";
import { Link, useRouter } from "@/i18n/navigation";
import { refreshAccount } from "@/ui/account/account-store";
import { Button } from "@/ui/primitives/Button";
import { signInEmail, signUpEmail } from "./auth-api";

/** Email + password sign-in or sign-up (better-auth). */
export function AuthForm({ mode, signupCredits }: { mode: "signIn" | "signUp"; signupCredits?: number }) {
  const t = useTranslations("auth");
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const next = typeof window !== "undefined" ? new URLSearchParams(window.location.search).get("next") : null;
  const field =
    "mt-1 block w-full rounded-lg border border-zinc-300 bg-transparent px-3 py-2 dark:border-zinc-700";

  return (
    <form
      className="mx-auto mt-8 max-w-sm space-y-4"
      onSubmit={async (e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        setBusy(true);
        setError(null);
        const email = String(data.get("email"));
        const password = String(data.get("password"));
        const result =
          mode === "signUp"
            ? await signUpEmail(email, password, String(data.get("name") || email.split("@")[0]))
            : await signInEmail(email, password);
        setBusy(false);
        if (result.error) {
          // better-auth's codes we have words for are shown in the user's language.
          setError(
            result.error.code === "PASSWORD_TOO_COMMON"
              ? t("passwordTooCommon")
              : mode === "signUp"
                ? t("signUpFailed", { reason: result.error.message ?? "" })
                : t("failed"),
          );
          return;
        }
        await refreshAccount();
        // Only same-site paths: never an open redirect.
        router.push(safeNext(next, window.location.origin, "/nano-banana-lora"));
      }}
    >
      {mode === "signUp" ? (
        <label className="block text-sm font-medium">
          {t("name")}
          <input name="name" autoComplete="name" className={field} />
        </label>
      ) : null}
      <label className="block text-sm font-medium">
        {t("email")}
        <input name="email" type="email" required autoComplete="email" className={field} />
      </label>
      <label className="block text-sm font-medium">
        {t("password")}
        <input
          name="password"
          type="password"
          required
          minLength={8}
          autoComplete={mode === "signUp" ? "new-password" : "current-password"}
          className={field}
          aria-describedby={mode === "signUp" ? "password-hint" : undefined}
        />
        {mode === "signUp" ? (
          <span id="password-hint" className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400">
            {t("passwordHint")}
          </span>
        ) : null}
      </label>
      {error ? (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      ) : null}
      <Button type="submit" className="w-full" disabled={busy}>
        {mode === "signUp" ? t("submitSignUp") : t("submitSignIn")}
      </Button>
      {mode === "signUp" && signupCredits ? (
        <p className="text-center text-sm text-zinc-600 dark:text-zinc-400">
          {t("grant", { credits: signupCredits })}
        </p>
      ) : null}
      <p className="text-center text-sm">
        {mode === "signUp" ? t("haveAccount") : t("noAccount")}{" "}
        <Link
          href={mode === "signUp" ? "/sign-in" : "/sign-up"}
          className="font-medium text-violet-700 underline dark:text-violet-300"
        >
          {mode === "signUp" ? t("submitSignIn") : t("submitSignUp")}
        </Link>
      </p>
    </form>
  );
}
