import type { MiddlewareHandler } from "hono";
import { AppError } from "@/core/errors";
import type { ApiEnv } from "./context";

/**
 * State-changing API calls must come from our own pages. A browser says where a request
 * comes from (Sec-Fetch-Site, Origin); a same-site page on another port or a sibling
 * subdomain sent `text/plain` JSON with the victim's cookie and created a checkout. So a POST
 * (PUT, PATCH, DELETE) is let through only when Sec-Fetch-Site is "same-origin", or, without
 * it, when Origin is exactly our origin; with neither it is refused (for a caller with a
 * session: one without has no cookie to abuse and gets the route's 401). Exempt: better-auth (it
 * checks origins itself) and signature-verified webhooks (their callers are servers).
 */
const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function isExempt(path: string): boolean {
  return (
    path.startsWith("/api/auth/") ||
    path === "/api/webhooks/stripe" ||
    /^\/api\/providers\/[^/]+\/webhook$/.test(path)
  );
}

export function originAllowed(
  appOrigin: string,
  headers: { origin?: string | null; secFetchSite?: string | null },
): boolean {
  if (headers.secFetchSite) return headers.secFetchSite === "same-origin";
  if (headers.origin) return headers.origin === appOrigin;
  return false;
}

export function originCheck(appUrl: string): MiddlewareHandler<ApiEnv> {
  const appOrigin = new URL(appUrl).origin;
  return async (c, next) => {
    // Only a caller with a session has a cookie to abuse; one without gets the route's 401.
    if (STATE_CHANGING.has(c.req.method) && !isExempt(c.req.path) && c.get("user")) {
      const ok = originAllowed(appOrigin, {
        origin: c.req.header("origin"),
        secFetchSite: c.req.header("sec-fetch-site"),
      });
      if (!ok)
        throw new AppError("FORBIDDEN", "This request did not come from this site.", undefined, {
          key: "originRefused",
        });
    }
    await next();
  };
}
