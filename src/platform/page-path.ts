/**
 * Whether a request path may go to the page renderer. A backslash (raw or %5C) or a leading
 * "//" is never one of our pages, and Next.js answered `GET /%5C%5Cevil.example` with a 500
 * (the locale redirect builds a URL from it); such paths get a plain 404 instead.
 */
export function isPagePath(url: string): boolean {
  const path = url.split("?")[0] ?? "";
  if (!path.startsWith("/") || path.startsWith("//")) return false;
  return !/\\|%5c/i.test(path);
}
