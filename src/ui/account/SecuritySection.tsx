"use client";
import { useLocale, useTranslations } from "next-intl";
import { useEffect, useState, type FormEvent } from "react";
import {
  changeEmail,
  changePassword,
  getSession,
  revokeOtherSessions,
  sendVerificationEmail,
} from "@/ui/auth/auth-api";
import { authErrorText } from "@/ui/auth/auth-errors";
import { PasswordField } from "@/ui/auth/PasswordField";
import { Button } from "@/ui/primitives/Button";
import { refreshAccount, useAccount } from "./account-store";
import { EmailField } from "@/ui/auth/EmailField";

type Notice = { kind: "ok" | "error"; text: string } | null;

function NoticeLine({ notice, testId }: { notice: Notice; testId: string }) {
  if (!notice) return null;
  return (
    <p
      role={notice.kind === "error" ? "alert" : "status"}
      data-testid={testId}
      className={
        "text-sm " + (notice.kind === "error" ? "text-red-600" : "text-emerald-700 dark:text-emerald-400")
      }
    >
      {notice.text}
    </p>
  );
}

/**
 * The account's security: change the password (the current one is required; other devices
 * are signed out), change the e-mail address (it changes once the link sent to the new
 * address is followed), and sign out every other session (cached sessions end at once on
 * every server process through the revocation broadcast).
 */
export function SecuritySection() {
  const t = useTranslations("auth");
  const ts = useTranslations("auth.security");
  const locale = useLocale();
  const account = useAccount();
  const [verified, setVerified] = useState<boolean | null>(null);
  const [pwNotice, setPwNotice] = useState<Notice>(null);
  const [emailNotice, setEmailNotice] = useState<Notice>(null);
  const [verifyNotice, setVerifyNotice] = useState<Notice>(null);
  const [sessionsNotice, setSessionsNotice] = useState<Notice>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const email = account.user?.email ?? "";

  useEffect(() => {
    if (account.status !== "signedIn") return;
    void getSession().then((r) => setVerified(r.data?.user?.emailVerified ?? null));
  }, [account.status, email]);

  if (account.status !== "signedIn") return null;

  const onPassword = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    setBusy("password");
    setPwNotice(null);
    const r = await changePassword(String(data.get("currentPassword")), String(data.get("newPassword")));
    setBusy(null);
    if (r.error) {
      const text =
        r.error.code === "INVALID_PASSWORD"
          ? ts("wrongPassword")
          : r.error.code === "CREDENTIAL_ACCOUNT_NOT_FOUND"
            ? ts("noPassword")
            : authErrorText(t, r.error, t("genericError"));
      setPwNotice({ kind: "error", text });
      return;
    }
    form.reset();
    setPwNotice({ kind: "ok", text: ts("passwordChanged") });
  };

  const onEmail = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const newEmail = String(new FormData(form).get("newEmail")).trim();
    setEmailNotice(null);
    if (newEmail.toLowerCase() === email.toLowerCase()) {
      setEmailNotice({ kind: "error", text: ts("sameEmail") });
      return;
    }
    setBusy("email");
    const r = await changeEmail(newEmail, locale);
    setBusy(null);
    if (r.error) {
      setEmailNotice({ kind: "error", text: authErrorText(t, r.error, t("genericError")) });
      return;
    }
    form.reset();
    setEmailNotice({ kind: "ok", text: ts("changeEmailSent", { email: newEmail }) });
  };

  return (
    <section aria-labelledby="security-h" className="space-y-6" data-testid="security-section">
      <h2 id="security-h" className="text-lg font-semibold">
        {ts("title")}
      </h2>

      <div className="space-y-2">
        <h3 className="font-medium">{ts("emailTitle")}</h3>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{ts("currentEmail", { email })}</p>
        {verified === false ? (
          <div className="flex flex-wrap items-center gap-3 text-sm">
            <span>{ts("unverified")}</span>
            <Button
              variant="secondary"
              disabled={busy !== null}
              onClick={async () => {
                setBusy("verify");
                const r = await sendVerificationEmail(email, locale);
                setBusy(null);
                setVerifyNotice(
                  r.error
                    ? { kind: "error", text: authErrorText(t, r.error, t("genericError")) }
                    : { kind: "ok", text: ts("verificationSent", { email }) },
                );
              }}
            >
              {ts("sendVerification")}
            </Button>
            <NoticeLine notice={verifyNotice} testId="verify-notice" />
          </div>
        ) : null}
        <form className="flex max-w-md flex-col gap-3" onSubmit={onEmail}>
          <EmailField label={ts("newEmail")} name="newEmail" testId="new-email" />
          <div>
            <Button type="submit" variant="secondary" disabled={busy !== null}>
              {ts("changeEmailSubmit")}
            </Button>
          </div>
          <NoticeLine notice={emailNotice} testId="email-notice" />
        </form>
      </div>

      <div className="space-y-2">
        <h3 className="font-medium">{ts("changePasswordTitle")}</h3>
        <form className="flex max-w-md flex-col gap-3" onSubmit={onPassword}>
          <PasswordField
            name="currentPassword"
            label={ts("currentPassword")}
            autoComplete="current-password"
            minLength={1}
          />
          <PasswordField
            name="newPassword"
            label={t("newPassword")}
            autoComplete="new-password"
            hint={`${t("passwordHint")} · ${ts("changePasswordHint")}`}
          />
          <div>
            <Button type="submit" variant="secondary" disabled={busy !== null}>
              {ts("changePasswordSubmit")}
            </Button>
          </div>
          <NoticeLine notice={pwNotice} testId="password-notice" />
        </form>
      </div>

      <div className="space-y-2">
        <h3 className="font-medium">{ts("sessionsTitle")}</h3>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{ts("sessionsHint")}</p>
        <Button
          variant="secondary"
          disabled={busy !== null}
          data-testid="sign-out-everywhere"
          onClick={async () => {
            setBusy("sessions");
            setSessionsNotice(null);
            const r = await revokeOtherSessions();
            setBusy(null);
            setSessionsNotice(
              r.error
                ? { kind: "error", text: authErrorText(t, r.error, t("genericError")) }
                : { kind: "ok", text: ts("signedOutEverywhere") },
            );
            await refreshAccount();
          }}
        >
          {ts("signOutEverywhere")}
        </Button>
        <NoticeLine notice={sessionsNotice} testId="sessions-notice" />
      </div>
    </section>
  );
}
