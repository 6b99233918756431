import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";
import { RateLimitExceeded } from "@/adapters/rate-limits";
import type { SessionUser } from "@/auth/session-cache";
import { AppError, Messages } from "@/core/errors";
import type { Services } from "@/platform/services";

export type ApiEnv = { Variables: { services: Services; user: SessionUser | null } };

/** The signed-in user, or a 401 "Please sign in to continue". */
export function requireUser(c: Context<ApiEnv>): SessionUser {
  const user = c.get("user");
  if (!user) throw new AppError("UNAUTHENTICATED", Messages.signIn);
  return user;
}

/** The caller's IP: the socket's, or X-Forwarded-For's first hop behind a trusted proxy. */
export function clientIp(c: Context<ApiEnv>): string | undefined {
  if (c.get("services").env.TRUST_PROXY) {
    const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/** Counts the request against the caller's rate limit; past it, a 429 naming the seconds to wait. */
export async function rateLimit(
  c: Context<ApiEnv>,
  kind: "upload" | "submit",
  userId: string,
): Promise<void> {
  try {
    await c.get("services").rateLimits.consume(kind, userId, clientIp(c));
  } catch (err) {
    if (!(err instanceof RateLimitExceeded)) throw err;
    const seconds = err.retryAfterSeconds;
    throw new AppError(
      "RATE_LIMITED",
      `Too many requests. Please wait ${seconds} seconds and try again.`,
      { retryAfter: seconds },
      { key: "rateLimited", values: { seconds } },
    );
  }
}

/** The request's JSON body, or a 400 saying it must be JSON. */
export async function readJson(c: { req: { json(): Promise<unknown> } }): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new AppError("BAD_REQUEST", "The request body must be JSON.");
  }
}
