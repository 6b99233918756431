import { Hono } from "hono";
import type { ApiEnv } from "../context";

/** better-auth's handler, plus dropping the cached session at sign-out. */
export function authRoutes() {
  return new Hono<ApiEnv>().on(["GET", "POST"], "/*", async (c) => {
    const s = c.get("services");
    if (c.req.path === "/api/auth/sign-out") s.sessions.forget(c.req.raw.headers);
    return s.auth.handler(c.req.raw);
  });
}
