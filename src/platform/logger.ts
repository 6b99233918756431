import pino from "pino";
import type { Env } from "@/config/env";

export type Logger = pino.Logger;

/** JSON logs to stdout; level from LOG_LEVEL. */
export function createLogger(env: Pick<Env, "LOG_LEVEL">): Logger {
  return pino({ level: env.LOG_LEVEL, base: { app: "photofx" } });
}
