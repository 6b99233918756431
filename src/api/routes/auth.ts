import { Hono } from "hono";
import { CLIENT_IP_HEADER } from "@/auth/auth";
import { clientIp, type ApiEnv } from "../context";

/**
 * better-auth's handler, plus dropping the cached session at sign-out. The request goes on
 * with the client's address as we determine it (socket, or a trusted proxy's X-Forwarded-For)
 * in our own header; whatever the caller sent in it is replaced.
 */
export function authRoutes() {
  return new Hono<ApiEnv>().on(["GET", "POST"], "/*", async (c) => {
    const s = c.get("services");
    if (c.req.path === "/api/auth/sign-out") s.sessions.forget(c.req.raw.headers);
    const headers = new Headers(c.req.raw.headers);
    headers.delete(CLIENT_IP_HEADER);
    const ip = clientIp(c);
    if (ip) headers.set(CLIENT_IP_HEADER, ip);
    const req = new Request(c.req.raw, { headers });
    return s.auth.handler(req);
  });
}
