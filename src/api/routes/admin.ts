import { Hono, type Context } from "hono";
import { z } from "zod";
import { auditQuerySchema, listAudit } from "@/core/admin/audit";
import { updateEffect, listEffectSettings } from "@/core/admin/effects";
import { engineStats, type EngineInfo } from "@/core/admin/engines";
import { overview, overviewQuerySchema } from "@/core/admin/overview";
import { adminActor, listAdmins, parseAdminEmails, setRole, type Actor } from "@/core/admin/roles";
import { listTasks, refundTask, taskQuerySchema, taskStory } from "@/core/admin/tasks";
import { adjustCredits, searchUsers, setSuspended, userDetail, userSearchSchema } from "@/core/admin/users";
import { AppError } from "@/core/errors";
import { providerById } from "@/engine/providers/table";
import type { Services } from "@/platform/services";
import type { ApiEnv } from "../context";

type AdminEnv = { Variables: ApiEnv["Variables"] & { admin: Actor } };

const notFound = { message: "Not found" };

async function readJson(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    throw new AppError("BAD_REQUEST", "The request body must be JSON.");
  }
}

function query<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  const parsed = schema.safeParse(c.req.query());
  if (!parsed.success)
    throw new AppError(
      "VALIDATION",
      parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "),
    );
  return parsed.data;
}

/** The engines this server has configured, with their costs, caps and breakers. */
export function engineInfos(s: Services): EngineInfo[] {
  return s.imageProviders.map(({ id, selfHosted }) => {
    const d = providerById(id);
    return {
      id,
      selfHosted,
      cost: d?.cost(s.env) ?? { v1: 0, v2: 0 },
      dailyCap: d?.dailyCap(s.env) ?? null,
      breaker: async () => (await s.engineRouter?.breaker(id)?.state()) ?? null,
    };
  });
}

/**
 * The operator's console API (`/api/admin/*`). Every route checks the caller's role in the
 * database first; anyone else (signed out, a user, a suspended or demoted admin) gets the
 * same 404 as an unknown path, so the console's existence is not disclosed. Writes pass the
 * Origin check (origin-check.ts) and each writes one audit row.
 */
export function adminRoutes() {
  const adminEmails = (s: Services) => parseAdminEmails(s.env.ADMIN_EMAILS);
  return new Hono<AdminEnv>()
    .use("*", async (c, next) => {
      const user = c.get("user");
      const s = c.get("services");
      const admin = user ? await adminActor(s.db, user.id, adminEmails(s)) : null;
      if (!admin) return c.json(notFound, 404);
      c.set("admin", admin);
      c.header("Cache-Control", "private, no-store");
      await next();
    })
    .get("/me", (c) => c.json({ admin: c.get("admin") }))
    .get("/admins", async (c) => c.json({ admins: await listAdmins(c.get("services").db) }))
    .get("/users", async (c) =>
      c.json({ users: await searchUsers(c.get("services").db, query(c, userSearchSchema)) }),
    )
    .get("/users/:id", async (c) => {
      const found = await userDetail(c.get("services").db, c.req.param("id"));
      return found ? c.json({ user: found }) : c.json(notFound, 404);
    })
    .post("/users/:id/credits", async (c) => {
      const res = await adjustCredits(
        c.get("services").db,
        c.get("admin"),
        c.req.param("id"),
        await readJson(c),
      );
      return c.json(res);
    })
    .post("/users/:id/suspend", async (c) => {
      const s = c.get("services");
      const res = await setSuspended(
        { db: s.db, storage: s.storage, revokeSessions: s.revokeSessions, events: s.events },
        c.get("admin"),
        c.req.param("id"),
        await readJson(c),
      );
      return c.json(res);
    })
    .post("/users/:id/role", async (c) => {
      const s = c.get("services");
      return c.json(
        await setRole(s.db, c.get("admin"), c.req.param("id"), await readJson(c), adminEmails(s)),
      );
    })
    .get("/tasks", async (c) => c.json(await listTasks(c.get("services").db, query(c, taskQuerySchema))))
    .get("/tasks/:id", async (c) => {
      const story = await taskStory(c.get("services").db, c.req.param("id"));
      return story ? c.json(story) : c.json(notFound, 404);
    })
    .post("/tasks/:id/refund", async (c) =>
      c.json(await refundTask(c.get("services").db, c.get("admin"), c.req.param("id"), await readJson(c))),
    )
    .get("/effects", (c) => {
      const s = c.get("services");
      return c.json({ effects: listEffectSettings(s.settings), engines: s.imageProviders.map((p) => p.id) });
    })
    .post("/effects/:id", async (c) => {
      const s = c.get("services");
      const effect = await updateEffect(
        { db: s.db, settings: s.settings, engines: s.imageProviders.map((p) => p.id) },
        c.get("admin"),
        c.req.param("id"),
        await readJson(c),
      );
      return c.json({ effect });
    })
    .get("/engines", async (c) => {
      const s = c.get("services");
      return c.json({ engines: await engineStats(s.db, engineInfos(s)) });
    })
    .get("/overview", async (c) => {
      const s = c.get("services");
      const { days } = query(c, overviewQuerySchema);
      return c.json(await overview(s.db, s.pricing, days));
    })
    .get("/audit", async (c) => c.json(await listAudit(c.get("services").db, query(c, auditQuerySchema))));
}
