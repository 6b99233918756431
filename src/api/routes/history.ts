import { Hono } from "hono";
import { AppError } from "@/core/errors";
import {
  batchFiles,
  batchQuerySchema,
  deleteResult,
  historyQuerySchema,
  listHistory,
  type BatchFile,
} from "@/core/history";
import { createShareLink, revokeShareLink } from "@/core/share";
import { requireUser, type ApiEnv } from "../context";
import { zipStream } from "../zip-stream";

const notFound = { message: "Not found" };

const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
  "image/avif": "avif",
};

/** `{effect}_{yyyymmdd_hhmmss}_{n}.{ext}` (UTC), as single downloads are named. */
export function zipEntryName(file: Pick<BatchFile, "effectId" | "createdAt" | "mime">, n: number): string {
  const stamp = file.createdAt.toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "_");
  return `${file.effectId}_${stamp}_${n}.${EXTENSIONS[file.mime] ?? "bin"}`;
}

/**
 * "My creations": the signed-in user's results (list, filter, pages), deleting one for real,
 * its public share link (make, revoke), and a batch's results as one ZIP. Someone else's
 * result answers 404, as a missing one does.
 */
export function historyRoutes() {
  return new Hono<ApiEnv>()
    .get("/history", async (c) => {
      const user = requireUser(c);
      const parsed = historyQuerySchema.safeParse(c.req.query());
      if (!parsed.success)
        throw new AppError("VALIDATION", parsed.error.issues[0]?.message ?? "Invalid query");
      return c.json(await listHistory(c.get("services").db, user.id, parsed.data));
    })
    .get("/history/zip", async (c) => {
      const user = requireUser(c);
      const parsed = batchQuerySchema.safeParse(c.req.query());
      if (!parsed.success)
        throw new AppError("VALIDATION", "Name the batch: batch=<batch id> or task=<one of its task ids>");
      const s = c.get("services");
      const files = await batchFiles(s.db, user.id, parsed.data);
      if (files.length === 0) return c.json(notFound, 404);
      const name = `photofx_${zipEntryName(files[0]!, files.length).replace(/_\d+\.\w+$/, "")}.zip`;
      const entries = files.map((f) => ({ ...f, name: (n: number) => zipEntryName(f, n) }));
      const body = zipStream(s.storage, entries, (err) =>
        s.log.error({ err: String(err), userId: user.id }, "batch ZIP failed"),
      );
      return new Response(body, {
        status: 200,
        headers: {
          "Content-Type": "application/zip",
          "Content-Disposition": `attachment; filename="${name}"`,
          "Cache-Control": "private, no-store",
          "X-Content-Type-Options": "nosniff",
        },
      });
    })
    .delete("/history/:id", async (c) => {
      const user = requireUser(c);
      const s = c.get("services");
      const deleted = await deleteResult({ db: s.db, storage: s.storage }, user.id, c.req.param("id"));
      return deleted ? c.body(null, 204) : c.json(notFound, 404);
    })
    .post("/history/:id/share", async (c) => {
      const user = requireUser(c);
      const link = await createShareLink(c.get("services").db, user.id, c.req.param("id"));
      return link ? c.json(link) : c.json(notFound, 404);
    })
    .delete("/history/:id/share", async (c) => {
      const user = requireUser(c);
      const revoked = await revokeShareLink(c.get("services").db, user.id, c.req.param("id"));
      return revoked ? c.body(null, 204) : c.json(notFound, 404);
    });
}
