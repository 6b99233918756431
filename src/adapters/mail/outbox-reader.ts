import fs from "node:fs/promises";
import path from "node:path";
import { simpleParser } from "mailparser";

/** One outbox message, decoded. */
export interface OutboxEntry {
  file: string;
  date: Date | null;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
}

/** The outbox's `.eml` files, oldest first (their names sort by time); files being written are skipped. */
export async function outboxFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  return names.filter((n) => n.endsWith(".eml") && !n.startsWith(".")).sort();
}

/** Decodes one `.eml` file (MIME parts, encoded headers, quoted-printable bodies). */
export async function readOutboxFile(dir: string, file: string): Promise<OutboxEntry> {
  const parsed = await simpleParser(await fs.readFile(path.join(dir, file)));
  const addresses = (v: typeof parsed.to): string =>
    (Array.isArray(v) ? v : v ? [v] : []).map((a) => a.text).join(", ");
  return {
    file,
    date: parsed.date ?? null,
    from: parsed.from?.text ?? "",
    to: addresses(parsed.to),
    subject: parsed.subject ?? "",
    text: parsed.text ?? "",
    html: typeof parsed.html === "string" ? parsed.html : null,
  };
}

/** The newest `limit` messages, newest first. */
export async function listOutbox(dir: string, limit = 50): Promise<OutboxEntry[]> {
  const files = (await outboxFiles(dir)).reverse().slice(0, limit);
  return Promise.all(files.map((f) => readOutboxFile(dir, f)));
}
