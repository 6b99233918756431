import { Zip, ZipDeflate, ZipPassThrough } from "fflate";
import type { ObjectStorage } from "@/core/ports/storage";

/** One stored file of a ZIP; `name` gets the count of files written so far, this one included. */
export interface ZipFile {
  storageKey: string;
  createdAt: Date;
  name: (n: number) => string;
}

/**
 * A ZIP streamed as the client takes the bytes: small generated documents first (deflated),
 * then each stored file, read one at a time. Images are already compressed, so they are stored,
 * not deflated again. A file gone from storage meanwhile (deleted while the ZIP was being made)
 * is skipped and not counted.
 */
export function zipStream(
  storage: ObjectStorage,
  files: ZipFile[],
  onError: (err: unknown) => void,
  documents: Array<{ name: string; text: string }> = [],
): ReadableStream<Uint8Array> {
  let next = 0;
  let written = 0;
  let zip: Zip;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      zip = new Zip((err, chunk, final) => {
        if (err) {
          onError(err);
          controller.error(err);
          return;
        }
        controller.enqueue(chunk);
        if (final) controller.close();
      });
      for (const d of documents) {
        const doc = new ZipDeflate(d.name, { level: 6 });
        zip.add(doc);
        doc.push(new TextEncoder().encode(d.text), true);
      }
    },
    async pull(controller) {
      try {
        while (next < files.length) {
          const file = files[next++]!;
          const bytes = await storage.get(file.storageKey);
          if (!bytes) continue;
          const entry = new ZipPassThrough(file.name(++written));
          entry.mtime = file.createdAt;
          zip.add(entry);
          entry.push(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), true);
          return;
        }
        zip.end();
      } catch (err) {
        onError(err);
        controller.error(err);
      }
    },
  });
}
