"use client";
import { useTranslations } from "next-intl";
import { useState } from "react";
import { Link } from "@/i18n/navigation";
import { refreshAccount } from "@/ui/account/account-store";
import { Button } from "@/ui/primitives/Button";
import { resetPassword } from "./auth-api";
import { authErrorText } from "./auth-errors";
import { PasswordField } from "./PasswordField";
import { FormError } from "@/ui/auth/EmailField";

/** Sets a new password from a reset link's token; every session of the account ends. */
export function ResetPasswordForm({ token }: { token: string | null }) {
  const t = useTranslations("auth");
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [invalid, setInvalid] = useState(!token);
  const [busy, setBusy] = useState(false);

  if (done) {
    return (
      <div className="mx-auto mt-8 max-w-sm space-y-3 text-center" role="status" data-testid="reset-done">
        <p>{t("resetDone")}</p>
        <p>
          <Link href="/sign-in" className="font-medium text-violet-700 underline dark:text-violet-300">
            {t("submitSignIn")}
          </Link>
        </p>
      </div>
    );
  }
  if (invalid || !token) {
    return (
      <div className="mx-auto mt-8 max-w-sm space-y-3 text-center" role="alert" data-testid="reset-invalid">
        <p>{t("linkInvalid")}</p>
        <p>
          <Link
            href="/forgot-password"
            className="font-medium text-violet-700 underline dark:text-violet-300"
          >
            {t("requestNewLink")}
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
        const password = String(new FormData(e.currentTarget).get("password"));
        setBusy(true);
        setError(null);
        const r = await resetPassword(token, password);
        setBusy(false);
        if (r.error) {
          if (r.error.code === "INVALID_TOKEN" || r.error.code === "USER_NOT_FOUND") setInvalid(true);
          else setError(authErrorText(t, r.error, t("genericError")));
          return;
        }
        setDone(true);
        // Every session ended, this browser's too.
        await refreshAccount();
      }}
    >
      <PasswordField
        name="password"
        label={t("newPassword")}
        autoComplete="new-password"
        hint={t("passwordHint")}
      />
      <FormError error={error} />
      <Button type="submit" className="w-full" disabled={busy}>
        {t("resetSubmit")}
      </Button>
    </form>
  );
}
