import { randomBytes } from "node:crypto";
import type { Env } from "@/config/env";

/**
 * Headers every response carries, pages and API alike: no framing by other sites (the account
 * page could be framed by any site), no MIME sniffing, a referrer that stays on our origin,
 * no plugins or base-URL tricks, and HSTS when the site is served over https. Pages replace
 * this policy with `pagePolicy` below, which also restricts scripts.
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

/** What the page policy must allow beyond our own origin, derived from the configuration. */
export interface PagePolicyConfig {
  /** Origin of presigned S3 URLs (results are shown and downloaded from there), if S3 is used. */
  storageOrigin?: string;
  /** Cloudflare Turnstile is the bot-check (its script, frame and calls). */
  turnstile: boolean;
  /** Development server: React's debugging needs eval, and hot reload a socket. */
  dev: boolean;
}

const TURNSTILE = "https://challenges.cloudflare.com";

/**
 * The pages' Content-Security-Policy for one response. Scripts run only with this response's
 * nonce (Next.js puts it on its own scripts when it finds it in the request's policy) or when
 * loaded by such a script ('strict-dynamic': Next.js's chunks, the Turnstile loader); no
 * inline script an attacker could inject runs. Styles may be inline (React style attributes,
 * widgets' own styles); images and downloads come from us, data:/blob: previews, or the
 * configured storage; ALTCHA solves its proof of work in a worker made from a data: or blob:
 * URL.
 */
export function pagePolicy(nonce: string, config: PagePolicyConfig): string {
  const extra = (...sources: (string | false | undefined)[]) =>
    sources.filter((s): s is string => Boolean(s)).join(" ");
  const directives = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${config.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    `img-src ${extra("'self'", "data:", "blob:", config.storageOrigin)}`,
    `connect-src ${extra("'self'", config.storageOrigin, config.turnstile && TURNSTILE, config.dev && "ws:")}`,
    "font-src 'self' data:",
    "worker-src 'self' blob: data:",
    `frame-src ${config.turnstile ? TURNSTILE : "'none'"}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ];
  return directives.join("; ");
}

/** A fresh nonce for one page response (128 random bits). */
export const newNonce = (): string => randomBytes(16).toString("base64");

/**
 * The origin the browser fetches presigned S3 URLs from: the endpoint's origin in path style
 * (the default with a custom endpoint: MinIO, R2), the bucket as a subdomain otherwise (AWS).
 */
export function storageOrigin(
  env: Pick<Env, "S3_BUCKET" | "S3_ENDPOINT" | "S3_REGION" | "S3_FORCE_PATH_STYLE">,
) {
  if (!env.S3_BUCKET) return undefined;
  if (env.S3_ENDPOINT) {
    const url = new URL(env.S3_ENDPOINT);
    const pathStyle = env.S3_FORCE_PATH_STYLE ?? true;
    return pathStyle ? url.origin : `${url.protocol}//${env.S3_BUCKET}.${url.host}`;
  }
  return `https://${env.S3_BUCKET}.s3.${env.S3_REGION}.amazonaws.com`;
}
