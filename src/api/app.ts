import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { bodyLimit } from "hono/body-limit";
import { AppError, isAppError } from "@/core/errors";
import { securityHeaders } from "@/platform/security-headers";
import type { Services } from "@/platform/services";
import type { ApiEnv } from "./context";
import { HTTP_STATUS } from "./error-map";
import { originCheck } from "./origin-check";
import { accountRoutes } from "./routes/account";
import { adminRoutes } from "./routes/admin";
import { authRoutes } from "./routes/auth";
import { billingRoutes, botcheckRoutes } from "./routes/billing";
import { creditRoutes } from "./routes/credits";
import { docsRoutes } from "./routes/docs";
import { effectRoutes } from "./routes/effects";
import { fileRoutes } from "./routes/files";
import { generationRoutes } from "./routes/generation";
import { healthRoutes } from "./routes/health";
import { historyRoutes } from "./routes/history";
import { imgCompatRoutes } from "./routes/img-compat";
import { providerRoutes } from "./routes/providers";
import { shareRoutes } from "./routes/share";
import { uploadRoutes } from "./routes/upload";

/** Largest body of a JSON request (a submit with 50 image URLs is about 110 KB). */
export const JSON_BODY_MAX = 256 * 1024;
/** Largest body of a provider or payment webhook. */
export const WEBHOOK_BODY_MAX = 1024 * 1024;

/**
 * The JSON API. Handlers are thin: authenticate, parse with zod, call one domain
 * function, and let AppErrors map to HTTP through HTTP_STATUS.
 */
export function createApi(services: Services): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  const headers = Object.entries(securityHeaders(services.env.appUrl));
  app.use("*", async (c, next) => {
    await next();
    // After the handler: responses made elsewhere (better-auth's) get them too.
    // A page served here (the API reference, routes/docs.ts) keeps its own, stricter policy.
    const keep = (k: string) => k === "content-security-policy" && c.res.headers.has(k);
    try {
      for (const [k, v] of headers) if (!keep(k)) c.res.headers.set(k, v);
    } catch {
      c.res = new Response(c.res.body, c.res);
      for (const [k, v] of headers) if (!keep(k)) c.res.headers.set(k, v);
    }
  });
  app.use("*", async (c, next) => {
    c.set("services", services);
    // Auth routes resolve sessions themselves; everything else gets the cached lookup.
    c.set(
      "user",
      c.req.path.startsWith("/api/auth/") ? null : await services.sessions.resolve(c.req.raw.headers),
    );
    await next();
  });

  // Every body is bounded: JSON routes small, webhooks a little more, the upload route its own
  // limit (the photo size). An unbounded body let eight 100 MB posts take the server to 2.5 GB.
  app.use("*", async (c, next) => {
    const path = c.req.path;
    if (path === "/api/upload" || c.req.method === "GET" || c.req.method === "HEAD") return next();
    const webhook = path.startsWith("/api/providers/") || path.startsWith("/api/webhooks/");
    return bodyLimit({
      maxSize: webhook ? WEBHOOK_BODY_MAX : JSON_BODY_MAX,
      onError: () => {
        throw new AppError("PAYLOAD_TOO_LARGE", "The request is too large.", undefined, {
          key: "requestTooLarge",
        });
      },
    })(c, next);
  });

  // State-changing calls with a session only from our own pages (origin-check.ts).
  app.use("/api/*", originCheck(services.env.appUrl));

  app.route("/api", healthRoutes());
  app.route("/api/auth", authRoutes());
  app.route("/api", effectRoutes());
  app.route("/api", uploadRoutes());
  app.route("/api", fileRoutes());
  app.route("/api", creditRoutes());
  app.route("/api/img", generationRoutes());
  app.route("/api/img", imgCompatRoutes());
  app.route("/api", docsRoutes());
  app.route("/api", billingRoutes());
  app.route("/api/botcheck", botcheckRoutes());
  app.route("/api", providerRoutes());
  app.route("/api", accountRoutes());
  app.route("/api", historyRoutes());
  app.route("/api", shareRoutes());
  app.route("/api/admin", adminRoutes());

  app.notFound((c) => c.json({ message: "Not found" }, 404));
  app.onError((err, c) => {
    if (isAppError(err)) {
      return c.json(
        {
          code: err.code,
          message: err.message,
          ...err.details,
          ...(err.i18n ? { messageKey: err.i18n.key, messageValues: err.i18n.values ?? {} } : {}),
        },
        HTTP_STATUS[err.code],
      );
    }
    if (err instanceof HTTPException) return err.getResponse();
    services.log.error({ err: String(err), stack: err.stack, path: c.req.path }, "unhandled API error");
    return c.json({ message: "Something went wrong. Please try again." }, 500);
  });
  return app;
}
