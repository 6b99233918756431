"use client";
import { useTranslations } from "next-intl";
import { useEffect, useRef, useSyncExternalStore, type ChangeEvent } from "react";
import { useDropzone, type FileRejection } from "react-dropzone";
import type { UploadAsset } from "@/ui/effect/use-generation";
import { isHeif } from "./formats";

export const ACCEPT = {
  "image/png": [".png"],
  "image/jpeg": [".jpg", ".jpeg"],
  "image/webp": [".webp"],
  // iPhone photos: the server converts them to JPEG (PNG with transparency).
  "image/heic": [".heic"],
  "image/heif": [".heif"],
};
export const MAX_BYTES = 10 * 1024 * 1024;

/** Whether a file is one we take (by type, or by name when the browser gives no type), and not too big. */
const acceptable = (file: File): boolean =>
  file.size <= MAX_BYTES &&
  (file.type in ACCEPT || isHeif(file) || (!file.type && /\.(png|jpe?g|webp)$/i.test(file.name)));

/** A touch screen (phone, tablet): where "Take a photo" makes sense. */
function useTouchDevice(): boolean {
  return useSyncExternalStore(
    (notify) => {
      const query = window.matchMedia("(pointer: coarse)");
      query.addEventListener("change", notify);
      return () => query.removeEventListener("change", notify);
    },
    () => window.matchMedia("(pointer: coarse)").matches,
    () => false,
  );
}

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
  const touch = useTouchDevice();
  const camera = useRef<HTMLInputElement>(null);
  const selfie = useRef<HTMLInputElement>(null);
  const onCapture = (e: ChangeEvent<HTMLInputElement>) => {
    const files = [...(e.target.files ?? [])];
    e.target.value = ""; // the same shot can be taken again
    const ok = files.filter(acceptable);
    if (ok.length) onFiles(ok);
    if (ok.length < files.length) onReject();
  };
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
      const ok = files.filter(acceptable);
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
      {touch ? (
        <div className="mt-2 grid grid-cols-2 gap-2">
          {/* The phone's camera, alongside the picker above (which also offers the library). */}
          <input
            ref={camera}
            type="file"
            accept="image/*"
            capture="environment"
            className="sr-only"
            tabIndex={-1}
            // Opened by the labelled button below; named too for tools that still find it.
            aria-label={t("takePhoto")}
            aria-hidden
            onChange={onCapture}
            disabled={disabled}
            data-testid="camera-input"
          />
          <input
            ref={selfie}
            type="file"
            accept="image/*"
            capture="user"
            className="sr-only"
            tabIndex={-1}
            // Opened by the labelled button below; named too for tools that still find it.
            aria-label={t("takeSelfie")}
            aria-hidden
            onChange={onCapture}
            disabled={disabled}
          />
          <button
            type="button"
            disabled={disabled}
            onClick={() => camera.current?.click()}
            className="rounded-lg border border-zinc-300 px-3 py-2 text-sm font-medium dark:border-zinc-700"
            data-testid="take-photo"
          >
            <span aria-hidden>📷 </span>
            {t("takePhoto")}
          </button>
          <button
            type="button"
            disabled={disabled}
            onClick={() => selfie.current?.click()}
            className="rounded-lg border border-zinc-300 px-3 py-2 text-sm font-medium dark:border-zinc-700"
          >
            <span aria-hidden>🤳 </span>
            {t("takeSelfie")}
          </button>
        </div>
      ) : null}
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
                  {a.previewUrl ? (
                    // eslint-disable-next-line @next/next/no-img-element -- a local object URL
                    <img src={a.previewUrl} alt="" className="h-full w-full object-cover" />
                  ) : (
                    // A HEIC before the server has converted it (or before sign-in).
                    <span
                      className="grid h-full w-full place-items-center bg-zinc-100 p-1 text-center text-[10px] text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300"
                      data-testid="asset-no-preview"
                    >
                      <span>
                        <span className="block text-base" aria-hidden>
                          🖼
                        </span>
                        <span className="block break-all">{a.file.name}</span>
                      </span>
                    </span>
                  )}
                </button>
                {/* Short labels that wrap (never cut off): a thumbnail can be 55 px wide. */}
                <span
                  className={
                    "pointer-events-none absolute inset-x-0 bottom-0 break-words rounded-b-lg px-0.5 py-px text-center text-[10px] font-medium leading-tight text-white " +
                    (a.status === "error"
                      ? "bg-red-600"
                      : a.status === "uploading" || a.status === "waiting"
                        ? "bg-zinc-900/70"
                        : "bg-emerald-600/90")
                  }
                  data-testid={`asset-status-${a.status}`}
                >
                  {a.status === "uploading"
                    ? t("statusUploading")
                    : a.status === "waiting"
                      ? t("statusWaiting")
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
