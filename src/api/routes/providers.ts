import { Hono } from "hono";
import type { ApiEnv } from "../context";

/** Largest webhook body we read (a result payload is a few kilobytes of JSON). */
const MAX_WEBHOOK_BYTES = 1024 * 1024;

/**
 * Callbacks from hosted image providers, one route for all: `POST /api/providers/:id/webhook`
 * hands the raw body to the receiver the provider table created for that provider (fal's
 * webhook mode, Replicate's...). The receiver verifies the provider's signature before
 * anything in the body is believed, so a forged delivery is refused with 401 and never
 * reaches a render. A provider without webhook mode answers 404.
 */
export function providerRoutes() {
  return new Hono<ApiEnv>().post("/providers/:id/webhook", async (c) => {
    const receiver = c.get("services").providerWebhooks.get(c.req.param("id"));
    if (!receiver) return c.json({ message: "Not found" }, 404);
    const declared = Number(c.req.header("content-length") ?? "0");
    if (declared > MAX_WEBHOOK_BYTES) return c.json({ message: "Payload too large" }, 413);
    const body = new Uint8Array(await c.req.arrayBuffer());
    if (body.byteLength > MAX_WEBHOOK_BYTES) return c.json({ message: "Payload too large" }, 413);
    const refused = await receiver.receive(body, c.req.raw.headers);
    if (refused) {
      c.get("services").log.warn({ refused, provider: c.req.param("id") }, "provider webhook refused");
      return c.json({ message: "Invalid signature" }, 401);
    }
    return c.json({ ok: true });
  });
}
