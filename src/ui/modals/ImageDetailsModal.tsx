"use client";
import { useFormatter, useTranslations } from "next-intl";
import { useState } from "react";
import type { ResultImage } from "@/ui/effect/use-generation";
import { Button } from "@/ui/primitives/Button";
import { Modal } from "@/ui/primitives/Modal";
import { modelLine } from "@/ui/results/engine-name";

/** Image Details: created, seed, prompt with copy, model, download, close. */
export function ImageDetailsModal({
  image,
  onClose,
  onDownload,
}: {
  image: ResultImage | null;
  onClose(): void;
  onDownload(image: ResultImage): void;
}) {
  const t = useTranslations("modals");
  const tResults = useTranslations("results");
  const format = useFormatter();
  const [copied, setCopied] = useState(false);
  return (
    <Modal
      open={image !== null}
      onOpenChange={(o) => {
        if (!o) {
          setCopied(false);
          onClose();
        }
      }}
      title={t("detailsTitle")}
      closeLabel={t("close")}
      wide
    >
      {image ? (
        <div className="grid gap-4 sm:grid-cols-2">
          {/* eslint-disable-next-line @next/next/no-img-element -- a private, signed-in image */}
          <img
            src={image.url}
            alt=""
            className="w-full rounded-lg border border-zinc-200 dark:border-zinc-700"
          />
          <dl className="space-y-3 text-sm">
            <div>
              <dt className="font-medium text-zinc-600 dark:text-zinc-400">{t("created")}</dt>
              <dd data-testid="details-created">
                {format.dateTime(new Date(image.createdAt), { dateStyle: "medium", timeStyle: "short" })}
              </dd>
            </div>
            <div>
              <dt className="font-medium text-zinc-600 dark:text-zinc-400">{t("seed")}</dt>
              <dd data-testid="details-seed">{image.seed ?? "—"}</dd>
            </div>
            {image.model ? (
              <div>
                <dt className="font-medium text-zinc-600 dark:text-zinc-400">{t("model")}</dt>
                <dd data-testid="details-model">
                  {modelLine(image.provider ?? "local", image.model, tResults("engineLocal"))}
                </dd>
              </div>
            ) : null}
            <div>
              <dt className="font-medium text-zinc-600 dark:text-zinc-400">{t("prompt")}</dt>
              <dd className="mt-1 flex items-start gap-2">
                <span className="flex-1 break-words" data-testid="details-prompt">
                  {image.prompt ? image.prompt : t("noPrompt")}
                </span>
                {/* Nothing to copy without a prompt: no button that would report "Copied" for nothing. */}
                {image.prompt ? (
                  <Button
                    variant="secondary"
                    className="!px-2 !py-1 text-xs"
                    onClick={async () => {
                      await navigator.clipboard.writeText(image.prompt);
                      setCopied(true);
                      setTimeout(() => setCopied(false), 2_000);
                    }}
                  >
                    {copied ? t("copied") : t("copy")}
                  </Button>
                ) : null}
              </dd>
            </div>
            {/* The dialog's own ✕ closes it (one "Close" button, not two). */}
            <div className="flex gap-2 pt-2">
              <Button onClick={() => onDownload(image)}>{t("download")}</Button>
            </div>
          </dl>
        </div>
      ) : null}
    </Modal>
  );
}
