import { Hono } from "hono";
import { EFFECTS } from "@/core/catalogue";
import type { ApiEnv } from "../context";

/** The public catalogue (without server-only details such as option schemas). */
export function effectRoutes() {
  const list = EFFECTS.map(({ options: _options, ...rest }) => rest);
  return new Hono<ApiEnv>().get("/effects", (c) => c.json({ effects: list }));
}
