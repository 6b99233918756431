import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { generatePayloadSchema } from "@/core/generate";
import type { Services } from "@/platform/services";
import { createApi } from "./app";
import { openApiDocument, UNDOCUMENTED } from "./openapi";
import { DOCS_POLICY } from "./routes/docs";

/** The Hono app's routes (the route table does not need live services). */
function appRoutes(): string[] {
  const app = createApi({ env: { appUrl: "http://localhost:3000" } } as unknown as Services);
  const seen = new Set<string>();
  for (const r of app.routes) {
    if (r.method === "ALL" || r.path.endsWith("*") || UNDOCUMENTED(r.path)) continue;
    seen.add(`${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, "{$1}")}`);
  }
  return [...seen].sort();
}

function documented(doc: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>))
    for (const method of Object.keys(ops)) out.push(`${method.toUpperCase()} ${path}`);
  return out.sort();
}

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const res = await validator.validate(structuredClone(openApiDocument()));
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    // The validator does look: a document with a broken reference fails.
    const broken = structuredClone(openApiDocument()) as { paths: Record<string, Record<string, unknown>> };
    broken.paths["/api/img/create"]!.post = { responses: { "200": { $ref: "#/components/responses/Nope" } } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it("lists every public route of the API, and only those", () => {
    expect(documented(openApiDocument())).toEqual(appRoutes());
    // The spec's calls are there, the ones of issue 19 included.
    const routes = documented(openApiDocument());
    for (const call of [
      "POST /api/img/nano-banana/submit",
      "POST /api/img/nano-banana/taskResult",
      "POST /api/img/create",
      "POST /api/img/flux-kontext-v2/submit",
      "POST /api/img/flux-kontext-v2/taskResult",
      "POST /api/img/flux-kontext-dev-v2",
      "POST /api/img/flux-kontext-dev-v2-result",
      "POST /api/img/create-v2",
      "POST /api/img/create-v2-result",
      "POST /api/img/create-result",
      "GET /api/img/result/{taskId}",
    ])
      expect(routes).toContain(call);
  });

  it("describes the generic payload from the zod schema the handler parses with", () => {
    const doc = openApiDocument() as {
      components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> };
    };
    const props = doc.components.schemas.GeneratePayload!.properties;
    expect(Object.keys(props).sort()).toEqual(Object.keys(generatePayloadSchema.shape).sort());
    for (const field of [
      "prompt",
      "dimension",
      "image_urls",
      "num_images",
      "batchSize",
      "image_path",
      "turnstileToken",
      "model",
      "imageType",
      "seed",
    ])
      expect(props[field]?.description, field).toBeTruthy();
  });

  it("serves the document and a reference page with its own script policy", async () => {
    const app = createApi({ env: { appUrl: "http://localhost:3000" } } as unknown as Services);
    // The session middleware needs services; the docs routes do not, so call them directly.
    const { docsRoutes } = await import("./routes/docs");
    const docs = docsRoutes();
    const json = await docs.request("/openapi.json");
    expect(json.status).toBe(200);
    expect(((await json.json()) as { openapi: string }).openapi).toBe("3.1.0");
    const page = await docs.request("/docs");
    expect(page.headers.get("content-security-policy")).toBe(DOCS_POLICY);
    const html = await page.text();
    // No inline script: every script comes from this origin, which is all the policy allows.
    expect(html).not.toMatch(/<script>(?!<\/script>)/);
    for (const src of html.matchAll(/<script src="([^"]+)"/g)) {
      const asset = await docs.request(src[1]!.replace(/^\/api/, ""));
      expect(asset.status, src[1]).toBe(200);
      expect(asset.headers.get("content-type")).toMatch(/javascript/);
    }
    expect(DOCS_POLICY).toContain("script-src 'self'");
    expect(DOCS_POLICY).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
    expect(app.routes.some((r) => r.path === "/api/docs")).toBe(true);
  });
});
