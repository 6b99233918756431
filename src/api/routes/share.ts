import { Hono } from "hono";
import { findShare } from "@/core/share";
import type { ApiEnv } from "../context";

/** Presigned storage URLs live just long enough for the redirect to be followed. */
const PRESIGN_SECONDS = 60;

/**
 * A shared result's image, to anyone with the link (no session). A revoked, unknown or
 * deleted share answers 404. Never cached past a revocation: each load asks again.
 */
export function shareRoutes() {
  return new Hono<ApiEnv>().get("/share/:token/image", async (c) => {
    const s = c.get("services");
    const share = await findShare(s.db, c.req.param("token"));
    if (!share) return c.json({ message: "Not found" }, 404);
    if (s.storage.presign) {
      const url = await s.storage.presign(share.storageKey, share.mime, PRESIGN_SECONDS);
      c.header("Cache-Control", "no-store");
      return c.redirect(url, 302);
    }
    const bytes = await s.storage.get(share.storageKey);
    if (!bytes) return c.json({ message: "Not found" }, 404);
    return c.body(new Uint8Array(bytes), 200, {
      "Content-Type": share.mime,
      "Content-Length": String(bytes.byteLength),
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Cache-Control": "no-cache",
      "Content-Disposition": "inline",
      // Other sites may show it (a chat's link preview fetches it), never frame our pages.
      "Cross-Origin-Resource-Policy": "cross-origin",
    });
  });
}
