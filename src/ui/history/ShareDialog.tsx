"use client";
import { useTranslations } from "next-intl";
import { useState } from "react";
import { toast } from "sonner";
import { Button } from "@/ui/primitives/Button";
import { Modal } from "@/ui/primitives/Modal";
import { createShare, revokeShare, shareAddress, type HistoryItem } from "./history-api";

/**
 * Sharing one result: opt-in (nothing is public until the owner makes the link), the link to
 * copy once made, and turning it off.
 */
export function ShareDialog({
  item,
  effectTitle,
  onClose,
  onChange,
}: {
  item: HistoryItem;
  effectTitle: string;
  onClose(): void;
  onChange(share: HistoryItem["share"]): void;
}) {
  const t = useTranslations("history");
  const tc = useTranslations("common");
  const [busy, setBusy] = useState(false);
  const link = item.share ? shareAddress(item.share.token) : null;

  const make = async () => {
    setBusy(true);
    try {
      const made = await createShare(item.id);
      onChange({ token: made.token, createdAt: made.createdAt });
    } catch {
      toast.error(t("shareFailed"));
    } finally {
      setBusy(false);
    }
  };
  const revoke = async () => {
    setBusy(true);
    try {
      await revokeShare(item.id);
      onChange(null);
      toast.success(t("revoked"));
    } catch {
      toast.error(t("revokeFailed"));
    } finally {
      setBusy(false);
    }
  };
  const copy = async () => {
    if (!link) return;
    try {
      await navigator.clipboard.writeText(link);
      toast.success(t("copied"));
    } catch {
      toast.error(t("copyFailed"));
    }
  };

  return (
    <Modal
      open
      onOpenChange={(open) => (open ? undefined : onClose())}
      title={t("shareTitle", { effect: effectTitle })}
      description={t("shareBody")}
      closeLabel={tc("close")}
    >
      {link ? (
        <div className="space-y-3">
          <label className="block text-sm font-medium" htmlFor="share-link">
            {t("shareLinkLabel")}
          </label>
          <input
            id="share-link"
            readOnly
            dir="ltr"
            value={link}
            onFocus={(e) => e.currentTarget.select()}
            className="block w-full rounded-lg border border-zinc-300 bg-transparent px-2 py-1.5 text-sm dark:border-zinc-700"
            data-testid="share-link"
          />
          <div className="flex flex-wrap gap-2">
            <Button onClick={() => void copy()}>{t("copyLink")}</Button>
            <a
              href={link}
              target="_blank"
              rel="noopener"
              className="inline-flex items-center rounded-lg border border-zinc-300 px-4 py-2 text-sm font-semibold hover:bg-zinc-50 focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600 dark:border-zinc-700 dark:hover:bg-zinc-800"
            >
              {t("openLink")}
            </a>
            <Button variant="secondary" disabled={busy} onClick={() => void revoke()}>
              {t("revoke")}
            </Button>
          </div>
        </div>
      ) : (
        <Button disabled={busy} aria-busy={busy} onClick={() => void make()}>
          {t("shareCreate")}
        </Button>
      )}
    </Modal>
  );
}
