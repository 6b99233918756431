import { Hono, type Context } from "hono";
import { locateImage } from "@/core/images";
import type { FileKind } from "@/core/signed-urls";
import { locateUpload } from "@/core/uploads";
import type { ApiEnv } from "../context";

const ID = /^[A-Za-z0-9]{10,64}$/;
/** Presigned storage URLs live just long enough for the redirect to be followed. */
const PRESIGN_SECONDS = 120;

/**
 * Stored files, to their owner or through a valid signed URL. With S3 the browser is
 * redirected to a short presigned URL; on local disk the bytes are served here. Never
 * sniffable, never cached publicly, never rendered as anything but an image.
 */
async function serve(c: Context<ApiEnv>, kind: FileKind) {
  const id = c.req.param("id") ?? "";
  if (!ID.test(id)) return c.json({ message: "Not found" }, 404);
  const s = c.get("services");
  const signed = s.signer.verify(kind, id, c.req.query("expires"), c.req.query("sig"));
  const user = c.get("user");
  if (!signed && !user) return c.json({ message: "Not found" }, 404);
  const owner = signed ? null : user!.id;
  const found = kind === "uploads" ? await locateUpload(s.db, id, owner) : await locateImage(s.db, id, owner);
  if (!found) return c.json({ message: "Not found" }, 404);
  if (s.storage.presign) {
    const url = await s.storage.presign(found.storageKey, found.mime, PRESIGN_SECONDS);
    c.header("Cache-Control", "private, no-store");
    return c.redirect(url, 302);
  }
  const bytes = await s.storage.get(found.storageKey);
  if (!bytes) return c.json({ message: "Not found" }, 404);
  return c.body(new Uint8Array(bytes), 200, {
    "Content-Type": found.mime,
    "Content-Length": String(bytes.byteLength),
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "Cache-Control": "private, max-age=3600",
    "Content-Disposition": "inline",
  });
}

export function fileRoutes() {
  return new Hono<ApiEnv>()
    .get("/uploads/:id", (c) => serve(c, "uploads"))
    .get("/images/:id", (c) => serve(c, "images"));
}
