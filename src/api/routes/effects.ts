import { Hono } from "hono";
import { EFFECTS, toClientEffect } from "@/core/catalogue";
import type { ApiEnv } from "../context";

/** The public catalogue (without server-only details such as option schemas). */
export function effectRoutes() {
  const list = EFFECTS.map(toClientEffect);
  return new Hono<ApiEnv>().get("/effects", (c) => c.json({ effects: list }));
}
