import fs from "node:fs/promises";
import path from "node:path";
import type { Locale } from "@/i18n/locales";

export const LEGAL_PAGES = ["privacy", "terms", "contact"] as const;
export type LegalPage = (typeof LEGAL_PAGES)[number];

/** Larger files are not legal texts: they are refused (and the default shown) rather than rendered. */
const MAX_BYTES = 200_000;

/**
 * The operator's own text for a legal page, if any: Markdown in DATA_DIR/legal, first
 * `<page>.<locale>.md`, then `<page>.md` (every language); null: the built-in default.
 * Read at each request, so an edit shows without a restart.
 */
export async function operatorLegalText(
  dataDir: string,
  page: LegalPage,
  locale: Locale,
): Promise<string | null> {
  const dir = path.join(dataDir, "legal");
  for (const name of [`${page}.${locale}.md`, `${page}.md`]) {
    try {
      const file = path.join(dir, name);
      const stat = await fs.stat(file);
      if (!stat.isFile() || stat.size > MAX_BYTES) continue;
      const text = await fs.readFile(file, "utf8");
      if (text.trim()) return text;
    } catch {
      // no such file: try the next, then the default
    }
  }
  return null;
}
