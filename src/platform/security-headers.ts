/**
 * Headers every response carries, pages and API alike: no framing by other sites (the account
 * page could be framed by any site), no MIME sniffing, a referrer that stays on our origin,
 * no plugins or base-URL tricks, and HSTS when the site is served over https. The policy
 * does not restrict scripts (Next.js's inline bootstrap would need nonces): framing, base-uri,
 * object-src and form-action are the parts that stop the review's attacks.
 */
export function securityHeaders(appUrl: string): Record<string, string> {
  const headers: Record<string, string> = {
    "content-security-policy":
      "frame-ancestors 'none'; base-uri 'self'; object-src 'none'; form-action 'self'",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
  };
  if (appUrl.startsWith("https://"))
    headers["strict-transport-security"] = "max-age=31536000; includeSubDomains";
  return headers;
}
