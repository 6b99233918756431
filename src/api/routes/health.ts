import { Hono } from "hono";
import { pingDatabase } from "@/adapters/db/client";
import type { ApiEnv } from "../context";

/** Liveness (the process answers) and readiness (its database answers). */
export function healthRoutes() {
  return new Hono<ApiEnv>()
    .get("/health", (c) => c.json({ status: "ok" }))
    .get("/ready", async (c) => {
      const s = c.get("services");
      try {
        await pingDatabase(s.database.db);
        return c.json({
          status: "ready",
          database: s.database.kind,
          queue: s.queue.kind,
          storage: s.storage.kind,
        });
      } catch {
        return c.json({ status: "unavailable", database: "unreachable" }, 503);
      }
    });
}
