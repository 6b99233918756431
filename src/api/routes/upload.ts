import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError, Messages } from "@/core/errors";
import { createUpload, MAX_UPLOAD_BYTES } from "@/core/uploads";
import { rateLimit, requireUser, type ApiEnv } from "../context";

/** Room for the multipart envelope around a file of the maximum size. */
const MULTIPART_OVERHEAD = 64 * 1024;

/**
 * POST /api/upload: multipart, field `file`; answers `{id, url, width, height, mime}` of the
 * stored image (a HEIC is stored converted to JPEG, so `url` is always one a browser shows).
 */
export function uploadRoutes() {
  return new Hono<ApiEnv>().post(
    "/upload",
    async (c, next) => {
      const user = requireUser(c); // refuse before reading a large body
      await rateLimit(c, "upload", user.id);
      await next();
    },
    bodyLimit({
      maxSize: MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD,
      onError: () => {
        throw new AppError("PAYLOAD_TOO_LARGE", Messages.uploadRejected, {
          reason: "The file is larger than 10 MB",
        });
      },
    }),
    async (c) => {
      const user = requireUser(c);
      let form: Record<string, unknown>;
      try {
        form = await c.req.parseBody();
      } catch {
        throw new AppError("BAD_REQUEST", 'Send the image as multipart/form-data in the field "file".');
      }
      const file = form.file;
      if (!(file instanceof File)) {
        throw new AppError("BAD_REQUEST", 'Send the image as multipart/form-data in the field "file".');
      }
      const bytes = new Uint8Array(await file.arrayBuffer());
      const s = c.get("services");
      const created = await createUpload(s, user.id, bytes);
      return c.json(created);
    },
  );
}
