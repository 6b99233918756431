"use client";
import { downloadFileName } from "@/ui/effect/task-client";

async function toPng(blob: Blob): Promise<Blob> {
  if (blob.type === "image/png") return blob;
  const bitmap = await createImageBitmap(blob);
  const canvas = document.createElement("canvas");
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  canvas.getContext("2d")!.drawImage(bitmap, 0, 0);
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("PNG encoding failed"))), "image/png"),
  );
}

/** Saves an image as `{prefix}_{yyyymmdd_hhmmss}_{index}.png` with real PNG bytes. */
export async function downloadImage(url: string, prefix: string, index: number): Promise<void> {
  const res = await fetch(url, { credentials: "same-origin" });
  if (!res.ok) throw new Error(`download failed: ${res.status}`);
  const png = await toPng(await res.blob());
  const href = URL.createObjectURL(png);
  const a = document.createElement("a");
  a.href = href;
  a.download = downloadFileName(prefix, index);
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}
