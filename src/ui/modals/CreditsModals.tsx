"use client";
import { useTranslations } from "next-intl";
import { Link } from "@/i18n/navigation";
import { Modal } from "@/ui/primitives/Modal";

/** Shown on a 402: not enough credits (no toast). Links to pricing. */
export function InsufficientCreditsModal({
  open,
  onClose,
  credits,
  balance,
}: {
  open: boolean;
  onClose(): void;
  credits: number;
  balance: number;
}) {
  const t = useTranslations("modals");
  return (
    <Modal
      open={open}
      onOpenChange={(o) => !o && onClose()}
      title={t("insufficientTitle")}
      description={t("insufficientBody", { credits, balance })}
      closeLabel={t("close")}
    >
      <Link
        href="/pricing"
        className="inline-block rounded-lg bg-violet-600 px-4 py-2 text-sm font-semibold text-white hover:bg-violet-700"
      >
        {t("buyCredits")}
      </Link>
    </Modal>
  );
}

/** Shown when a free user adds more images than the plan allows. Links to the plans. */
export function UpgradeModal({ open, onClose }: { open: boolean; onClose(): void }) {
  const t = useTranslations("modals");
  return (
    <Modal
      open={open}
      onOpenChange={(o) => !o && onClose()}
      title={t("upgradeTitle")}
      description={t("upgradeBody")}
      closeLabel={t("close")}
    >
      <Link
        href="/pricing#plans"
        className="inline-block rounded-lg bg-violet-600 px-4 py-2 text-sm font-semibold text-white hover:bg-violet-700"
      >
        {t("seePlans")}
      </Link>
    </Modal>
  );
}

/** The uploaded image, larger. */
export function UploadPreviewModal({ src, onClose }: { src: string | null; onClose(): void }) {
  const t = useTranslations("modals");
  return (
    <Modal
      open={src !== null}
      onOpenChange={(o) => !o && onClose()}
      title={t("previewTitle")}
      closeLabel={t("close")}
      wide
    >
      {/* eslint-disable-next-line @next/next/no-img-element -- a local object URL */}
      {src ? <img src={src} alt="" className="mx-auto max-h-[70vh] rounded-lg" /> : null}
    </Modal>
  );
}
