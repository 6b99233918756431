/**
 * photofx: one Node process. The Hono app answers /api/*; Next.js renders every other
 * path. Polling is the hottest path, so API requests never pass through Next.js.
 */
import http from "node:http";
import { getRequestListener } from "@hono/node-server";
import next from "next";
import { createApi } from "@/api/app";
import { EnvError, parseEnv } from "@/config/env";
import { createServices } from "@/platform/services";
import { isPagePath } from "@/platform/page-path";
import { securityHeaders } from "@/platform/security-headers";

async function main() {
  let env;
  try {
    env = parseEnv();
  } catch (err) {
    if (err instanceof EnvError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const dev = process.argv.includes("--dev");
  const services = await createServices(env);
  (globalThis as { __photofx?: unknown }).__photofx = services;
  const api = getRequestListener(createApi(services).fetch);

  const nextApp = next({ dev, dir: __dirname, hostname: "localhost", port: env.PORT });
  await nextApp.prepare();
  const pages = nextApp.getRequestHandler();

  const headers = Object.entries(securityHeaders(env.appUrl));
  const server = http.createServer((req, res) => {
    for (const [k, v] of headers) res.setHeader(k, v);
    if (req.url === "/api" || req.url?.startsWith("/api/")) {
      void api(req, res);
    } else if (!isPagePath(req.url ?? "")) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found");
    } else {
      void pages(req, res);
    }
  });
  server.keepAliveTimeout = 65_000;
  server.listen(env.PORT, env.HOST, () => {
    services.log.info(
      {
        url: env.appUrl,
        database: services.database.kind,
        storage: services.storage.kind,
        queue: services.queue.kind,
      },
      `photofx ready on http://localhost:${env.PORT}`,
    );
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    services.log.info({ signal }, "shutting down");
    server.close();
    server.closeAllConnections();
    await services.close();
    await nextApp.close?.();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
