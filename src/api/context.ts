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
