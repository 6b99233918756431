import { Hono, type Context } from "hono";
import { readImage } from "@/core/images";
import type { FileKind } from "@/core/signed-urls";
import { readUpload } from "@/core/uploads";
import type { ApiEnv } from "../context";

const ID = /^[A-Za-z0-9]{10,64}$/;

/**
 * Stored files, to their owner or through a valid signed URL. Never sniffable, never
 * cached publicly, never rendered as anything but an image.
 */
async function serve(c: Context<ApiEnv>, kind: FileKind) {
  const id = c.req.param("id") ?? "";
  if (!ID.test(id)) return c.json({ message: "Not found" }, 404);
  const s = c.get("services");
  const signed = s.signer.verify(kind, id, c.req.query("expires"), c.req.query("sig"));
  const user = c.get("user");
  if (!signed && !user) return c.json({ message: "Not found" }, 404);
  const owner = signed ? null : user!.id;
  const file = kind === "uploads" ? await readUpload(s, id, owner) : await readImage(s, id, owner);
  if (!file) return c.json({ message: "Not found" }, 404);
  return c.body(new Uint8Array(file.bytes), 200, {
    "Content-Type": file.mime,
    "Content-Length": String(file.bytes.byteLength),
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
