"use client";
import { useTranslations } from "next-intl";
import { useEffect, useId, useState } from "react";
import { toast } from "sonner";
import { useRouter } from "@/i18n/navigation";
import { Button } from "@/ui/primitives/Button";
import { Modal } from "@/ui/primitives/Modal";
import { refreshAccount, useAccount } from "./account-store";

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

const DANGER =
  "inline-flex items-center justify-center gap-2 rounded-lg bg-red-700 px-4 py-2 text-sm font-semibold text-white transition hover:bg-red-800 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700 disabled:cursor-not-allowed disabled:bg-red-300 dark:disabled:bg-red-950";

/** "Keep my original photos for 30 days": off by default; off again deletes the kept ones. */
function KeepOriginals() {
  const t = useTranslations("privacy");
  const id = useId();
  const [on, setOn] = useState<boolean | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    void fetch("/api/account/preferences", { cache: "no-store" })
      .then(async (r) => (r.ok ? ((await r.json()) as { keepOriginals: boolean }) : null))
      .then((p) => p && setOn(p.keepOriginals))
      .catch(() => {});
  }, []);

  const change = async (next: boolean) => {
    setSaving(true);
    try {
      const res = await fetch("/api/account/preferences", {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ keepOriginals: next }),
      });
      if (!res.ok) throw new Error(String(res.status));
      const body = (await res.json()) as { keepOriginals: boolean; originalsDeleted: number };
      setOn(body.keepOriginals);
      toast.success(
        body.keepOriginals
          ? t("keepOriginalsSavedOn")
          : t("keepOriginalsSavedOff", { count: body.originalsDeleted }),
      );
    } catch {
      toast.error(t("saveFailed"));
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="flex items-start gap-3">
      <input
        id={id}
        type="checkbox"
        role="switch"
        className="mt-1 h-5 w-5 accent-violet-600"
        checked={on ?? false}
        disabled={on === null || saving}
        aria-describedby={`${id}-help`}
        onChange={(e) => void change(e.target.checked)}
        data-testid="keep-originals"
      />
      <div>
        <label htmlFor={id} className="font-medium">
          {t("keepOriginalsLabel")}
        </label>
        <p id={`${id}-help`} className="text-sm text-zinc-600 dark:text-zinc-400">
          {t("keepOriginalsHelp")}
        </p>
      </div>
    </div>
  );
}

/** The confirmation dialog: the account's e-mail must be typed before anything is deleted. */
function DeleteAccount({ email }: { email: string }) {
  const t = useTranslations("privacy");
  const router = useRouter();
  const inputId = useId();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const matches = same(typed, email);

  const submit = async () => {
    if (!matches || busy) return;
    setBusy(true);
    setError(null);
    try {
      const res = await fetch("/api/account/delete", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ confirmation: typed }),
      });
      if (!res.ok) {
        const body = (await res.json().catch(() => ({}))) as { reason?: string };
        setError(
          body.reason === "confirmationMismatch"
            ? t("deleteMismatch")
            : body.reason === "subscriptionNotCancelled"
              ? t("deleteSubscriptionFailed")
              : t("deleteFailed"),
        );
        return;
      }
      setOpen(false);
      toast.success(t("deleted"));
      await refreshAccount();
      router.replace("/");
    } catch {
      setError(t("deleteFailed"));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button
        type="button"
        className={DANGER}
        onClick={() => {
          setTyped("");
          setError(null);
          setOpen(true);
        }}
        data-testid="delete-account"
      >
        {t("deleteButton")}
      </button>
      <Modal
        open={open}
        onOpenChange={(o) => !busy && setOpen(o)}
        title={t("deleteDialogTitle")}
        description={t("deleteDialogBody", { email })}
        closeLabel={t("close")}
      >
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
          className="space-y-3"
        >
          <label htmlFor={inputId} className="block text-sm font-medium">
            {t("deleteConfirmLabel")}
          </label>
          <input
            id={inputId}
            type="email"
            autoComplete="off"
            spellCheck={false}
            maxLength={320}
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            className="w-full rounded-lg border border-zinc-300 bg-white px-3 py-2 dark:border-zinc-700 dark:bg-zinc-950"
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${inputId}-error` : undefined}
            data-testid="delete-confirmation"
          />
          {error ? (
            <p id={`${inputId}-error`} role="alert" className="text-sm text-red-700 dark:text-red-400">
              {error}
            </p>
          ) : null}
          <div className="flex flex-wrap justify-end gap-2">
            <Button variant="secondary" onClick={() => setOpen(false)} disabled={busy}>
              {t("cancel")}
            </Button>
            <button
              type="submit"
              className={DANGER}
              disabled={!matches || busy}
              data-testid="delete-account-confirm"
            >
              {busy ? t("deleting") : t("deleteConfirm")}
            </button>
          </div>
        </form>
      </Modal>
    </>
  );
}

/** The account page's data rights: keep originals, export everything, delete the account. */
export function DangerZone() {
  const t = useTranslations("privacy");
  const account = useAccount();
  if (account.status !== "signedIn" || !account.user) return null;
  return (
    <>
      <section aria-labelledby="privacy-h" className="space-y-6">
        <h2 id="privacy-h" className="text-lg font-semibold">
          {t("sectionTitle")}
        </h2>
        <KeepOriginals />
        <div>
          <h3 className="font-medium">{t("exportTitle")}</h3>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">{t("exportHelp")}</p>
          <a
            href="/api/account/export"
            download
            className="mt-2 inline-flex items-center justify-center rounded-lg border border-zinc-300 bg-white px-4 py-2 text-sm font-semibold text-zinc-900 hover:bg-zinc-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-violet-600 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800"
            data-testid="export-data"
          >
            {t("exportButton")}
          </a>
        </div>
      </section>
      <section
        aria-labelledby="delete-h"
        className="rounded-2xl border border-red-300 p-4 dark:border-red-900"
        data-testid="danger-zone"
      >
        <h2 id="delete-h" className="text-lg font-semibold text-red-700 dark:text-red-400">
          {t("deleteTitle")}
        </h2>
        <p className="mt-1 mb-3 text-sm text-zinc-700 dark:text-zinc-300">{t("deleteHelp")}</p>
        <DeleteAccount email={account.user.email} />
      </section>
    </>
  );
}
