"use client";
import { useTranslations } from "next-intl";
import { useRerun } from "@/ui/privacy/use-rerun";

/**
 * "Re-run with the same settings" for a text-to-image result (the generic generate call
 * without a photo): it has no original photo, so the compare-and-re-run pair (CompareRerun,
 * shown only while originals are kept) never offers it. The same request again: the same
 * description, shape, model and seed, a new charge, the bot-check for the free plan; a server
 * without a generative engine any more refuses it with its translated reason.
 */
export function TextRerun({ imageId, className }: { imageId: string; className: string }) {
  const t = useTranslations("privacy");
  const { busy, rerun, dialog } = useRerun(imageId);
  return (
    <>
      <button
        type="button"
        className={className}
        onClick={() => void rerun()}
        disabled={busy}
        data-testid="rerun-result"
      >
        {busy ? t("rerunning") : t("rerun")}
      </button>
      {dialog}
    </>
  );
}
