import { getConnInfo } from "@hono/node-server/conninfo";
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
 * reachable) and Prometheus metrics (/metrics: behind METRICS_TOKEN when set, else localhost only).
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
      if (!metricsAllowed(s.env.METRICS_TOKEN, c.req.header("authorization"), socketAddress(c))) {
        return c.json({ message: "Not found" }, 404);
      }
      return c.text(await s.metrics.registry.metrics(), 200, {
        "Content-Type": s.metrics.registry.contentType,
      });
    });
}

/** The socket's address (never a forwarded header: a proxy in front makes every caller remote). */
function socketAddress(c: Parameters<typeof getConnInfo>[0]): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/**
 * Who may read the metrics: with METRICS_TOKEN, whoever sends it as a bearer token; without
 * one, only this machine (a scraper on localhost): they were open to anyone by default.
 */
export function metricsAllowed(
  token: string | undefined,
  authorization: string | undefined,
  address: string | undefined,
): boolean {
  if (token) {
    const given = Buffer.from(authorization ?? "");
    const expected = Buffer.from(`Bearer ${token}`);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
  return address === "127.0.0.1" || address === "::1" || address === "::ffff:127.0.0.1";
}
