"use client";
import { useLocale, useTranslations } from "next-intl";
import { safeNext } from "./safe-next";
import { useState } from "react";
import { Link, useRouter } from "@/i18n/navigation";
import { refreshAccount } from "@/ui/account/account-store";
import { Button } from "@/ui/primitives/Button";
import { sendVerificationEmail, signInEmail, signUpEmail } from "./auth-api";
import { authErrorText } from "./auth-errors";
import { fieldClass, PasswordField } from "./PasswordField";
import { EmailField, FormError } from "@/ui/auth/EmailField";

/** Email + password sign-in or sign-up (better-auth). */
export function AuthForm({ mode, signupCredits }: { mode: "signIn" | "signUp"; signupCredits?: number }) {
  const t = useTranslations("auth");
  const locale = useLocale();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Sign-in refused until the address is verified: offer to send the link again.
  const [unverified, setUnverified] = useState<string | null>(null);
  const [resent, setResent] = useState(false);
  // Sign-up with verification required: the same answer whether or not the address had an account.
  const [checkInbox, setCheckInbox] = useState<string | null>(null);
  const next = typeof window !== "undefined" ? new URLSearchParams(window.location.search).get("next") : null;

  if (checkInbox) {
    return (
      <div className="mx-auto mt-8 max-w-sm space-y-3 text-center" role="status" data-testid="check-inbox">
        <h2 className="text-xl font-semibold">{t("checkInboxTitle")}</h2>
        <p>{t("checkInbox", { email: checkInbox })}</p>
        <p className="text-sm">
          <Link href="/sign-in" className="font-medium text-violet-700 underline dark:text-violet-300">
            {t("backToSignIn")}
          </Link>
        </p>
      </div>
    );
  }

  return (
    <form
      className="mx-auto mt-8 max-w-sm space-y-4"
      onSubmit={async (e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        setBusy(true);
        setError(null);
        setUnverified(null);
        setResent(false);
        const email = String(data.get("email"));
        const password = String(data.get("password"));
        if (mode === "signUp") {
          const result = await signUpEmail(
            email,
            password,
            String(data.get("name") || email.split("@")[0]),
            locale,
          );
          setBusy(false);
          if (result.error) {
            setError(
              authErrorText(t, result.error, t("signUpFailed", { reason: result.error.message ?? "" })),
            );
            return;
          }
          // No session: the address must be confirmed through the link first.
          if (!result.data?.token) {
            setCheckInbox(email);
            return;
          }
        } else {
          const result = await signInEmail(email, password, locale);
          setBusy(false);
          if (result.error) {
            if (result.error.code === "EMAIL_NOT_VERIFIED") {
              setUnverified(email);
              return;
            }
            setError(authErrorText(t, result.error, t("failed")));
            return;
          }
        }
        await refreshAccount();
        // Only same-site paths: never an open redirect.
        router.push(safeNext(next, window.location.origin, "/nano-banana-lora"));
      }}
    >
      {mode === "signUp" ? (
        <label className="block text-sm font-medium">
          {t("name")}
          <input name="name" autoComplete="name" maxLength={100} className={fieldClass} />
        </label>
      ) : null}
      <EmailField label={t("email")} />
      <PasswordField
        name="password"
        label={t("password")}
        autoComplete={mode === "signUp" ? "new-password" : "current-password"}
        hint={mode === "signUp" ? t("passwordHint") : undefined}
        minLength={mode === "signUp" ? 8 : 1}
      />
      {mode === "signIn" ? (
        <p className="text-end text-sm">
          <Link
            href="/forgot-password"
            className="font-medium text-violet-700 underline dark:text-violet-300"
            data-testid="forgot-password-link"
          >
            {t("forgotLink")}
          </Link>
        </p>
      ) : null}
      <FormError error={error} />
      {unverified ? (
        <div role="alert" className="space-y-2 text-sm" data-testid="email-not-verified">
          <p className="text-red-600">{t("notVerified")}</p>
          {resent ? (
            <p role="status" className="text-emerald-700 dark:text-emerald-400">
              {t("resent")}
            </p>
          ) : (
            <Button
              variant="secondary"
              disabled={busy}
              onClick={async () => {
                setBusy(true);
                const r = await sendVerificationEmail(unverified, locale);
                setBusy(false);
                if (r.error) setError(authErrorText(t, r.error, t("genericError")));
                else setResent(true);
              }}
            >
              {t("resend")}
            </Button>
          )}
        </div>
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
