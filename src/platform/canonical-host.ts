/**
 * Many people type http://127.0.0.1:3000 where the server's APP_URL says
 * http://localhost:3000. better-auth trusts APP_URL's origin only, so a sign-up from the other
 * address fails with INVALID_ORIGIN. Rather than trusting more origins, page requests that
 * reach a loopback APP_URL through another loopback name are sent to APP_URL's own address.
 * Nothing changes when APP_URL is a public host (its proxy decides which names reach it).
 */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Splits a Host header into name and port (IPv6 in brackets), or null when malformed. */
function parseHost(host: string): { name: string; port: string } | null {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(host.trim());
  return m ? { name: m[1]!.toLowerCase(), port: m[2] ?? "" } : null;
}

/**
 * Where a GET/HEAD page request should be redirected, or null to serve it: only when APP_URL
 * is a loopback origin and the request's Host is a different loopback name on the same port.
 */
export function loopbackRedirect(
  appUrl: string,
  hostHeader: string | undefined,
  path: string,
): string | null {
  if (!hostHeader) return null;
  const app = new URL(appUrl);
  if (!LOOPBACK.has(app.hostname)) return null;
  const host = parseHost(hostHeader);
  if (!host || !LOOPBACK.has(host.name)) return null;
  const appPort = app.port || (app.protocol === "https:" ? "443" : "80");
  const reqPort = host.port || (app.protocol === "https:" ? "443" : "80");
  if (reqPort !== appPort) return null;
  const appName = app.hostname;
  if (host.name === appName || (appName === "[::1]" && host.name === "::1")) return null;
  // The path is the request target as received: keep only an origin-relative one.
  const safePath = path.startsWith("/") && !path.startsWith("//") ? path : "/";
  return `${app.origin}${safePath}`;
}
