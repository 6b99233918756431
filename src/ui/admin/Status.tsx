"use client";
import { useTranslations } from "next-intl";
import { Button } from "@/ui/primitives/Button";

/** Loading and load-failure states of a console section. */
export function LoadState({
  loading,
  error,
  onRetry,
}: {
  loading: boolean;
  error: boolean;
  onRetry(): void;
}) {
  const t = useTranslations("admin");
  if (error)
    return (
      <div role="alert" className="flex items-center gap-3 text-sm">
        <span>{t("loadFailed")}</span>
        <Button variant="secondary" onClick={onRetry}>
          {t("retry")}
        </Button>
      </div>
    );
  if (loading)
    return (
      <p role="status" className="text-sm text-zinc-600 dark:text-zinc-400">
        {t("loading")}
      </p>
    );
  return null;
}
