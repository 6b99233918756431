import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";
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
