import { Hono } from "hono";
import type { ApiEnv } from "../context";

/** Largest webhook body we read (a result payload is a few kilobytes of JSON). */
const MAX_WEBHOOK_BYTES = 1024 * 1024;

/**
 * Callbacks from hosted image providers. fal's webhook mode POSTs each finished job here;
 * the hub verifies fal's signature before anything in the body is believed, so a forged
 * delivery is refused with 401 and never reaches a render.
 */
export function providerRoutes() {
  return new Hono<ApiEnv>().post("/providers/fal/webhook", async (c) => {
    const hub = c.get("services").falWebhooks;
    if (!hub) return c.json({ message: "Not found" }, 404);
    const declared = Number(c.req.header("content-length") ?? "0");
    if (declared > MAX_WEBHOOK_BYTES) return c.json({ message: "Payload too large" }, 413);
    const body = new Uint8Array(await c.req.arrayBuffer());
    if (body.byteLength > MAX_WEBHOOK_BYTES) return c.json({ message: "Payload too large" }, 413);
    const refused = await hub.receive(body, c.req.raw.headers);
    if (refused) {
      c.get("services").log.warn({ refused }, "fal webhook refused");
      return c.json({ message: "Invalid signature" }, 401);
    }
    return c.json({ ok: true });
  });
}
