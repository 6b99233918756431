"use client";
import { useTranslations } from "next-intl";
import { useEffect } from "react";
import { useDropzone, type FileRejection } from "react-dropzone";
import type { UploadAsset } from "@/ui/effect/use-generation";

export const ACCEPT = {
  "image/png": [".png"],
  "image/jpeg": [".jpg", ".jpeg"],
  "image/webp": [".webp"],
};
export const MAX_BYTES = 10 * 1024 * 1024;

/**
 * Click, drag and drop, or paste images. Each file shows its state (uploading, done,
 * error) with a preview; one can be removed, all cleared, and a click on a preview opens it.
 */
export function UploadArea({
  assets,
  onFiles,
  onReject,
  onRemove,
  onClear,
  onPreview,
  disabled,
}: {
  assets: UploadAsset[];
  onFiles(files: File[]): void;
  onReject(): void;
  onRemove(id: string): void;
  onClear(): void;
  onPreview(asset: UploadAsset): void;
  disabled?: boolean;
}) {
  const t = useTranslations("upload");
  const { getRootProps, getInputProps, isDragActive } = useDropzone({
    accept: ACCEPT,
    maxSize: MAX_BYTES,
    multiple: true,
    disabled,
    onDrop: (accepted: File[], rejected: FileRejection[]) => {
      if (accepted.length) onFiles(accepted);
      if (rejected.length) onReject();
    },
  });

  // Paste images from the clipboard anywhere on the page.
  useEffect(() => {
    const onPaste = (e: ClipboardEvent) => {
      const files = [...(e.clipboardData?.files ?? [])];
      if (!files.length) return;
      const ok = files.filter((f) => f.type in ACCEPT && f.size <= MAX_BYTES);
      if (ok.length) onFiles(ok);
      if (ok.length < files.length) onReject();
    };
    window.addEventListener("paste", onPaste);
    return () => window.removeEventListener("paste", onPaste);
  }, [onFiles, onReject]);

  return (
    <div>
      <div
        {...getRootProps({
          className:
            "flex cursor-pointer flex-col items-center justify-center rounded-xl border-2 border-dashed px-4 py-8 text-center transition focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600 " +
            (isDragActive
              ? "border-violet-500 bg-violet-50 dark:bg-violet-950/40"
              : "border-zinc-300 hover:border-violet-400 dark:border-zinc-700"),
        })}
        data-testid="upload-area"
      >
        <input {...getInputProps()} data-testid="upload-input" />
        <span aria-hidden className="text-3xl">
          ⬆
        </span>
        <p className="mt-2 font-medium">{isDragActive ? t("dropActive") : t("dropHere")}</p>
        <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">{t("formats")}</p>
      </div>
      {assets.length > 0 ? (
        <div className="mt-3">
          <ul className="grid grid-cols-4 gap-2" aria-live="polite">
            {assets.map((a, i) => (
              <li key={a.id} className="relative">
                <button
                  type="button"
                  onClick={() => onPreview(a)}
                  className="block aspect-square w-full overflow-hidden rounded-lg border border-zinc-200 focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600 dark:border-zinc-700"
                  aria-label={t("preview", { n: i + 1 })}
                >
                  {/* eslint-disable-next-line @next/next/no-img-element -- a local object URL */}
                  <img src={a.previewUrl} alt="" className="h-full w-full object-cover" />
                </button>
                <span
                  className={
                    "pointer-events-none absolute inset-x-0 bottom-0 truncate rounded-b-lg px-1 text-center text-[10px] font-medium text-white " +
                    (a.status === "error"
                      ? "bg-red-600"
                      : a.status === "uploading"
                        ? "bg-zinc-900/70"
                        : "bg-emerald-600/90")
                  }
                  data-testid={`asset-status-${a.status}`}
                >
                  {a.status === "uploading"
                    ? t("statusUploading")
                    : a.status === "error"
                      ? t("statusError")
                      : t("statusDone")}
                </span>
                <button
                  type="button"
                  onClick={() => onRemove(a.id)}
                  className="absolute -end-1.5 -top-1.5 grid h-6 w-6 place-items-center rounded-full bg-zinc-900 text-xs text-white shadow focus-visible:outline focus-visible:outline-2 focus-visible:outline-violet-600"
                  aria-label={t("remove", { n: i + 1 })}
                >
                  ✕
                </button>
              </li>
            ))}
          </ul>
          <button
            type="button"
            onClick={onClear}
            className="mt-2 text-sm text-zinc-600 underline dark:text-zinc-400"
          >
            {t("clearAll")}
          </button>
        </div>
      ) : null}
    </div>
  );
}
