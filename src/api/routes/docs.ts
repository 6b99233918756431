import fs from "node:fs/promises";
import path from "node:path";
import { Hono } from "hono";
import type { ApiEnv } from "../context";
import { openApiDocument } from "../openapi";

/**
 * The OpenAPI document (GET /api/openapi.json) and its reference page (GET /api/docs),
 * rendered in the browser by Swagger UI from the `swagger-ui-dist` package, loaded only on
 * that page and served from here (no third-party origin). The page is static: no inline
 * script, its own Content-Security-Policy (scripts from this origin only), which the API's
 * header middleware keeps.
 */

export const DOCS_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join("; ");

/** The page's files: Swagger UI's bundle and style sheet, and our two-line start script. */
const ASSETS: Record<string, { file?: string; body?: string; type: string }> = {
  "swagger-ui-bundle.js": { file: "swagger-ui-bundle.js", type: "text/javascript; charset=utf-8" },
  "swagger-ui.css": { file: "swagger-ui.css", type: "text/css; charset=utf-8" },
  "start.js": {
    body: `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({ url: "/api/openapi.json", dom_id: "#reference", deepLinking: true, validatorUrl: null, tryItOutEnabled: false });
});
`,
    type: "text/javascript; charset=utf-8",
  },
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>photofx API reference</title>
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
</head>
<body>
<noscript>This page needs JavaScript. The document itself is at <a href="/api/openapi.json">/api/openapi.json</a>.</noscript>
<div id="reference"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/assets/start.js"></script>
</body>
</html>
`;

const fileCache = new Map<string, Promise<Buffer>>();
async function readAsset(file: string): Promise<Buffer> {
  let hit = fileCache.get(file);
  if (!hit) {
    hit = (async () => {
      for (const base of require.resolve.paths("swagger-ui-dist") ?? []) {
        const full = path.join(base, "swagger-ui-dist", file);
        try {
          return await fs.readFile(full);
        } catch {
          /* next place */
        }
      }
      throw new Error(`swagger-ui-dist/${file} is not installed`);
    })();
    hit.catch(() => fileCache.delete(file));
    fileCache.set(file, hit);
  }
  return hit;
}

export function docsRoutes() {
  const app = new Hono<ApiEnv>();
  app.get("/openapi.json", (c) => {
    c.header("cache-control", "no-cache");
    return c.json(openApiDocument());
  });
  app.get("/docs", (c) => {
    c.header("content-security-policy", DOCS_POLICY);
    c.header("cache-control", "no-cache");
    return c.html(PAGE);
  });
  app.get("/docs/assets/:file", async (c) => {
    const asset = ASSETS[c.req.param("file")];
    if (!asset) return c.json({ message: "Not found" }, 404);
    const body = asset.body ?? (await readAsset(asset.file!));
    c.header("content-security-policy", DOCS_POLICY);
    c.header("cache-control", "public, max-age=3600");
    c.header("content-type", asset.type);
    return c.body(typeof body === "string" ? body : new Uint8Array(body));
  });
  return app;
}
