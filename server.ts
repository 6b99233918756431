/**
 * photofx: one Node process. The Hono app answers /api/*; Next.js renders every other
 * path. Polling is the hottest path, so API requests never pass through Next.js.
 */
import http from "node:http";
import net from "node:net";
import os from "node:os";
import { EnvError, parseEnv } from "@/config/env";
import { DataDirLockedError, lockDataDir } from "@/platform/data-dir-lock";
import { loopbackRedirect } from "@/platform/canonical-host";
import { isPagePath } from "@/platform/page-path";
import { newNonce, pagePolicy, securityHeaders, storageOrigin } from "@/platform/security-headers";

/** What a failed listen means, for the operator. */
function listenFailure(err: NodeJS.ErrnoException, port: number, host: string): string {
  if (err.code === "EADDRINUSE")
    return `photofx cannot start: port ${port} is already in use on ${host} (another photofx, or another program). Stop it, or set PORT to a free port.`;
  if (err.code === "EACCES")
    return `photofx cannot start: no permission to listen on port ${port} on ${host}. Use a port above 1023, or set PORT.`;
  return `photofx cannot start: listening on ${host}:${port} failed: ${err.message}`;
}

/** Binds the port for a moment and lets it go: a busy port is known before the slow start-up. */
function checkPortFree(port: number, host: string): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", (err: NodeJS.ErrnoException) => resolve(err));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(null)));
  });
}

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
  // With the embedded database, one server per DATA_DIR (the database is this process's
  // alone; on PostgreSQL several web processes may share a folder, docs/DEPLOY.md). A busy
  // port is a clear message and exit 1 too, both before anything heavy starts.
  try {
    if (!env.DATABASE_URL) {
      lockDataDir(env.dataDir, {
        onStaleLock: (h) =>
          console.warn(
            h.hostname && h.hostname !== os.hostname()
              ? `photofx: taking over the lock on ${env.dataDir} written by process ${h.pid} on host ${h.hostname}, which cannot be checked from here`
              : `photofx: taking over the lock on ${env.dataDir} of process ${h.pid}, which is no longer running`,
          ),
      });
    }
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      console.error(`photofx cannot start: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const portError = await checkPortFree(env.PORT, env.HOST);
  if (portError) {
    console.error(listenFailure(portError, env.PORT, env.HOST));
    process.exit(1);
  }
  // The heavy modules (Next.js, the services and their engine) load once the checks passed:
  // a refused start ends in about a second, not after seconds of loading.
  const [{ getRequestListener }, { default: next }, { createApi }, { createServices }] = await Promise.all([
    import("@hono/node-server"),
    import("next"),
    import("@/api/app"),
    import("@/platform/services"),
  ]);
  const services = await createServices(env);
  (globalThis as { __photofx?: unknown }).__photofx = services;
  const api = getRequestListener(createApi(services).fetch);

  const nextApp = next({ dev, dir: __dirname, hostname: "localhost", port: env.PORT });
  await nextApp.prepare();
  const pages = nextApp.getRequestHandler();

  const headers = Object.entries(securityHeaders(env.appUrl));
  const policyConfig = { storageOrigin: storageOrigin(env), turnstile: Boolean(env.TURNSTILE_SITE_KEY), dev };
  const server = http.createServer((req, res) => {
    let redirect: string | null;
    for (const [k, v] of headers) res.setHeader(k, v);
    if (req.url === "/api" || req.url?.startsWith("/api/")) {
      void api(req, res);
    } else if (!isPagePath(req.url ?? "")) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found");
    } else if (
      (req.method === "GET" || req.method === "HEAD") &&
      (redirect = loopbackRedirect(env.appUrl, req.headers.host, req.url ?? "/"))
    ) {
      // 127.0.0.1 typed for a localhost APP_URL: sign-in would fail its origin check there.
      res.writeHead(308, { location: redirect }).end();
    } else {
      // Pages restrict scripts to this response's nonce. Next.js finds the nonce in the
      // request's policy (set here, whatever the client sent) and puts it on its scripts.
      const policy = pagePolicy(newNonce(), policyConfig);
      req.headers["content-security-policy"] = policy;
      res.setHeader("content-security-policy", policy);
      void pages(req, res);
    }
  });
  server.keepAliveTimeout = 65_000;
  // The port was free a moment ago; if another process took it since, stop just the same.
  server.once("error", (err: NodeJS.ErrnoException) => {
    console.error(listenFailure(err, env.PORT, env.HOST));
    void Promise.race([services.close(0), new Promise((r) => setTimeout(r, 3_000))]).finally(() =>
      process.exit(1),
    );
  });
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
