import { headers } from "next/headers";
import type { SessionUser } from "@/auth/session-cache";
import type { Services } from "@/platform/services";

/**
 * The running services, for server-rendered pages that read the database (the history's
 * session check, a share page). server.ts builds them once and keeps them on globalThis;
 * Next.js renders pages in the same process.
 */
export function pageServices(): Services {
  const services = (globalThis as { __photofx?: Services }).__photofx;
  if (!services)
    throw new Error(
      "photofx services are not running in this process: start the site with server.ts (npm start, npm run dev, npm run app), not next start",
    );
  return services;
}

/** The signed-in user of the request being rendered, or null. */
export async function pageUser(): Promise<SessionUser | null> {
  return pageServices().sessions.resolve(new Headers(await headers()));
}
