/** Lower case without accents, so "cafe" finds "Café" and "ILLUSTRATION" finds "illustration". */
export function foldText(text: string, locale?: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLocaleLowerCase(locale === "tw" ? "zh-Hant" : locale);
}

/**
 * Whether an effect matches a search: every word of the query appears in its translated
 * title or description (any order). An empty query matches everything.
 */
export function matchesQuery(
  effect: { title: string; description: string },
  query: string,
  locale?: string,
): boolean {
  const words = foldText(query.slice(0, 100), locale).split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const haystack = foldText(`${effect.title} ${effect.description}`, locale);
  return words.every((w) => haystack.includes(w));
}
