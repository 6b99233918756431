/**
 * The API half of server.ts (the same services and Hono app, without Next.js) on the
 * embedded defaults, for `npm run bench:api`. Polling and submit never reach Next.js in the
 * real server either, so this measures the same code path.
 */
import http from "node:http";
import { getRequestListener } from "@hono/node-server";
import { createApi } from "@/api/app";
import { parseEnv } from "@/config/env";
import { createServices } from "@/platform/services";

async function main() {
  const env = parseEnv();
  const services = await createServices(env);
  const api = getRequestListener(createApi(services).fetch);
  const server = http.createServer((req, res) => void api(req, res));
  server.keepAliveTimeout = 65_000;
  server.listen(env.PORT, "127.0.0.1", () => process.send?.({ ready: true }));
  process.on("SIGTERM", async () => {
    server.close();
    server.closeAllConnections();
    await services.close();
    process.exit(0);
  });
}
void main();
