import { timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import { pingDatabase } from "@/adapters/db/client";
import type { ApiEnv } from "../context";

async function check(probe: () => Promise<void>): Promise<"ok" | "unreachable"> {
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), 3_000).unref()),
    ]);
    return "ok";
  } catch {
    return "unreachable";
  }
}

/**
 * Liveness (/health: the process answers), readiness (/ready: database, queue and storage
 * reachable) and Prometheus metrics (/metrics, behind METRICS_TOKEN when set).
 */
export function healthRoutes() {
  return new Hono<ApiEnv>()
    .get("/health", (c) => c.json({ status: "ok" }))
    .get("/ready", async (c) => {
      const s = c.get("services");
      const [database, queue, storage] = await Promise.all([
        check(() => pingDatabase(s.db)),
        check(() => s.queue.ping()),
        check(() => s.storage.ping()),
      ]);
      const ready = database === "ok" && queue === "ok" && storage === "ok";
      return c.json(
        {
          status: ready ? "ready" : "unavailable",
          database: { kind: s.database.kind, status: database },
          queue: { kind: s.queue.kind, status: queue },
          storage: { kind: s.storage.kind, status: storage },
        },
        ready ? 200 : 503,
      );
    })
    .get("/metrics", async (c) => {
      const s = c.get("services");
      const token = s.env.METRICS_TOKEN;
      if (token) {
        const given = Buffer.from(c.req.header("authorization") ?? "");
        const expected = Buffer.from(`Bearer ${token}`);
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
          return c.json({ message: "Not found" }, 404);
        }
      }
      return c.text(await s.metrics.registry.metrics(), 200, {
        "Content-Type": s.metrics.registry.contentType,
      });
    });
}
