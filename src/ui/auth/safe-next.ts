/**
 * Where to go after signing in or up: the `next` query parameter, only if it is a page of this
 * site. It is parsed as browsers parse it (WHATWG URL: a backslash counts as a slash, tabs and
 * newlines are dropped), against our own origin, so "/\evil.example", "/%09/evil.example" or
 * "//evil.example" resolve to another host and are refused. Returns a path (with query and
 * fragment) on our origin, or `fallback`.
 */
export function safeNext(raw: string | null | undefined, origin: string, fallback: string): string {
  if (!raw || !raw.startsWith("/")) return fallback;
  let url: URL;
  try {
    url = new URL(raw, origin);
  } catch {
    return fallback;
  }
  if (url.origin !== new URL(origin).origin) return fallback;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // What we hand to the router must not be read differently by it: one leading slash only.
  return path.startsWith("//") || path.includes("\\") ? fallback : path;
}
