"use client";
import { useLocale, useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import { Link } from "@/i18n/navigation";
import { refreshAccount } from "@/ui/account/account-store";
import { Button } from "@/ui/primitives/Button";
import { sendVerificationEmail, verifyEmail } from "./auth-api";
import { authErrorText } from "./auth-errors";
import { EmailField, FormError } from "@/ui/auth/EmailField";

/**
 * Follows an e-mail link: confirms the token (a sign-up's address, or the new address of an
 * e-mail change) through better-auth, which signs the user in. An expired or broken link
 * offers a new one.
 */
export function VerifyEmail({ token }: { token: string | null }) {
  const t = useTranslations("auth");
  const locale = useLocale();
  const [state, setState] = useState<"checking" | "verified" | "changed" | "invalid">(
    token ? "checking" : "invalid",
  );
  const [resent, setResent] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (!token || started.current) return;
    started.current = true;
    void verifyEmail(token, locale).then(async (r) => {
      if (r.error) return setState("invalid");
      setState(r.data?.user ? "changed" : "verified");
      await refreshAccount();
    });
  }, [token, locale]);

  if (state === "checking") {
    return (
      <p className="mt-8 text-center" role="status">
        {t("verifying")}
      </p>
    );
  }
  if (state === "verified" || state === "changed") {
    return (
      <div className="mx-auto mt-8 max-w-sm space-y-4 text-center" role="status" data-testid="email-verified">
        <p>{state === "changed" ? t("emailChanged") : t("verified")}</p>
        <Link
          href={state === "changed" ? "/account" : "/nano-banana-lora"}
          className="inline-block rounded-lg bg-violet-600 px-4 py-2 text-sm font-semibold text-white hover:bg-violet-700"
        >
          {state === "changed" ? t("security.title") : t("continue")}
        </Link>
      </div>
    );
  }
  return (
    <div className="mx-auto mt-8 max-w-sm space-y-4" data-testid="verify-invalid">
      <p role="alert">{t("linkInvalid")}</p>
      {resent ? (
        <p role="status" className="text-emerald-700 dark:text-emerald-400">
          {t("resent")}
        </p>
      ) : (
        <form
          className="space-y-3"
          onSubmit={async (e) => {
            e.preventDefault();
            const email = String(new FormData(e.currentTarget).get("email")).trim();
            setError(null);
            const r = await sendVerificationEmail(email, locale);
            if (r.error) setError(authErrorText(t, r.error, t("genericError")));
            else setResent(true);
          }}
        >
          <EmailField label={t("verifyResendIntro")} />
          <FormError error={error} />
          <Button type="submit" variant="secondary">
            {t("resend")}
          </Button>
        </form>
      )}
    </div>
  );
}
