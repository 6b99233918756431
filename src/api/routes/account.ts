import { Hono } from "hono";
import { deleteCookie } from "hono/cookie";
import { deleteAccount } from "@/core/account-deletion";
import { collectExport, EXPORT_DOCUMENT_NAME } from "@/core/data-export";
import { AppError } from "@/core/errors";
import { getPreferences, preferencesSchema, setPreferences } from "@/core/originals";
import { rerunResult, resultOriginals } from "@/core/rerun";
import { clientIp, rateLimit, readJson, requireUser, type ApiEnv } from "../context";
import { zipStream } from "../zip-stream";
import { generateDeps } from "./img-compat";

const notFound = { message: "Not found" };

/**
 * The user's data rights (ADR 016): export everything (a ZIP), delete the account, the
 * "keep my originals" choice, and what kept originals allow (compare, re-run). Owner only:
 * another user's result answers 404. POST/PUT pass the Origin check (origin-check.ts).
 */
export function accountRoutes() {
  return new Hono<ApiEnv>()
    .get("/account/export", async (c) => {
      const user = requireUser(c);
      const s = c.get("services");
      const data = await collectExport(s.db, user.id);
      if (!data) return c.json(notFound, 404);
      const day = new Date().toISOString().slice(0, 10);
      const body = zipStream(
        s.storage,
        data.files.map((f) => ({ storageKey: f.storageKey, createdAt: f.createdAt, name: () => f.path })),
        (err) => s.log.error({ err: String(err), userId: user.id }, "data export ZIP failed"),
        [{ name: EXPORT_DOCUMENT_NAME, text: JSON.stringify(data.document, null, 2) }],
      );
      return new Response(body, {
        status: 200,
        headers: {
          "Content-Type": "application/zip",
          "Content-Disposition": `attachment; filename="photofx-data-${day}.zip"`,
          "Cache-Control": "private, no-store",
          "X-Content-Type-Options": "nosniff",
        },
      });
    })
    .post("/account/delete", async (c) => {
      const user = requireUser(c);
      const s = c.get("services");
      const report = await deleteAccount(
        {
          db: s.db,
          storage: s.storage,
          payments: s.payments,
          revokeSessions: s.revokeSessions,
          events: s.events,
          log: (msg, extra) => s.log.error(extra ?? {}, msg),
        },
        user,
        await readJson(c),
      );
      s.log.info(
        {
          tombstone: report.tombstone,
          tasksCancelled: report.tasksCancelled,
          subscriptionCancelled: report.subscriptionCancelled,
          filesDeleted: report.filesDeleted,
          filesFailed: report.filesFailed,
        },
        "account deleted",
      );
      // The browser's session cookie names a session that no longer exists: drop it too.
      const cookie = (await s.auth.$context).authCookies.sessionToken;
      deleteCookie(c, cookie.name, { path: "/", secure: cookie.name.startsWith("__Secure-") });
      return c.json({
        deleted: true,
        tasksCancelled: report.tasksCancelled,
        subscriptionCancelled: report.subscriptionCancelled,
      });
    })
    .get("/account/preferences", async (c) => {
      const user = requireUser(c);
      return c.json(await getPreferences(c.get("services").db, user.id));
    })
    .put("/account/preferences", async (c) => {
      const user = requireUser(c);
      const parsed = preferencesSchema.safeParse(await readJson(c));
      if (!parsed.success) throw new AppError("VALIDATION", "Send { keepOriginals: true | false }.");
      const s = c.get("services");
      return c.json(await setPreferences({ db: s.db, storage: s.storage }, user.id, parsed.data));
    })
    .get("/results/:id/originals", async (c) => {
      const user = requireUser(c);
      const found = await resultOriginals(c.get("services").db, user.id, c.req.param("id"));
      return found ? c.json(found) : c.json(notFound, 404);
    })
    .post("/results/:id/rerun", async (c) => {
      const user = requireUser(c);
      const s = c.get("services");
      await rateLimit(c, "submit", user.id);
      const raw = await c.req.text();
      let body: unknown = {};
      if (raw.trim()) {
        try {
          body = JSON.parse(raw);
        } catch {
          throw new AppError("BAD_REQUEST", "The request body must be JSON.");
        }
      }
      const res = await rerunResult(generateDeps(s), {
        userId: user.id,
        imageId: c.req.param("id"),
        body,
        idempotencyKey: c.req.header("idempotency-key"),
        ip: clientIp(c),
        hostname: new URL(c.req.url).hostname,
      });
      if (!res) return c.json(notFound, 404);
      return c.json({ message: "Task submitted", data: { taskIds: res.taskIds } });
    });
}
