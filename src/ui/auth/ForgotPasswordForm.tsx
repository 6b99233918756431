"use client";
import { useLocale, useTranslations } from "next-intl";
import { useState } from "react";
import { Link } from "@/i18n/navigation";
import { Button } from "@/ui/primitives/Button";
import { requestPasswordReset } from "./auth-api";
import { authErrorText } from "./auth-errors";
import { EmailField, FormError } from "@/ui/auth/EmailField";

/**
 * Asks for a password-reset link. The answer is the same whether or not the address has
 * an account (only a refusal for too many attempts differs, and it does for everyone).
 */
export function ForgotPasswordForm({
  outboxOnly,
  supportEmail,
}: {
  /** No SMTP server configured: mail stays in the server's outbox, for its operator. */
  outboxOnly: boolean;
  supportEmail: string;
}) {
  const t = useTranslations("auth");
  const locale = useLocale();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (sentTo) {
    return (
      <div className="mx-auto mt-8 max-w-sm space-y-3 text-center" role="status" data-testid="forgot-sent">
        <p>{t("forgotSent", { email: sentTo })}</p>
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
        const email = String(new FormData(e.currentTarget).get("email")).trim();
        setBusy(true);
        setError(null);
        const r = await requestPasswordReset(email, locale);
        setBusy(false);
        if (r.error) setError(authErrorText(t, r.error, t("genericError")));
        else setSentTo(email);
      }}
    >
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t("forgotIntro")}</p>
      {outboxOnly ? (
        <p
          className="rounded-lg bg-amber-50 p-3 text-sm text-amber-900 dark:bg-amber-950/40 dark:text-amber-200"
          data-testid="forgot-no-mail"
        >
          {t("forgotNoMail", { support: supportEmail })}
        </p>
      ) : null}
      <EmailField label={t("email")} />
      <FormError error={error} />
      <Button type="submit" className="w-full" disabled={busy}>
        {t("forgotSubmit")}
      </Button>
      <p className="text-center text-sm">
        <Link href="/sign-in" className="font-medium text-violet-700 underline dark:text-violet-300">
          {t("backToSignIn")}
        </Link>
      </p>
    </form>
  );
}
