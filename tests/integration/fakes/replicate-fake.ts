import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { signReplicateWebhook } from "@/engine/providers/replicate/replicate-webhook";

/**
 * A local stand-in for Replicate's HTTP API as our provider uses it: create a prediction
 * (`POST /v1/models/{owner}/{name}/predictions`, or `POST /v1/predictions` with a
 * version), honouring `Prefer: wait=N` by holding the answer until the prediction ends or
 * N seconds pass; `GET /v1/predictions/{id}`; `POST /v1/predictions/{id}/cancel`; the
 * output file served from the fake itself (standing in for replicate.delivery); and, when
 * the prediction asked for one, a webhook signed the Standard Webhooks way with the
 * account secret (or, on request, a forged one). Inputs are checked against the model's
 * schema: the edit models need `prompt` and `image`, Qwen-Image (text-to-image) a `prompt`
 * and one of its aspect ratios (a version's unknown model: a `prompt`). Tests script its answers and read what it received.
 */

export type ReplicateFakeMode = "ok" | "fail" | "nsfw" | "stuck" | "5xx";

export interface ReplicateRecorded {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

export interface ReplicateCreated {
  id: string;
  /** `owner/name` of the model route, or null for /v1/predictions. */
  model: string | null;
  version: string | null;
  input: Record<string, unknown>;
  webhook: string | null;
  webhookEventsFilter: unknown;
  prefer: string | null;
}

export interface ReplicateFake {
  url: string;
  /** Behaviour of the next predictions. */
  mode: ReplicateFakeMode;
  /** How long a prediction runs before it ends (not in "stuck" mode). */
  runMs: number;
  /** Statuses answered to the next creates before one is accepted (e.g. [{status: 429, retryAfter: "1"}]). */
  createFailures: Array<{ status: number; retryAfter?: string }>;
  /** Every request received, in order. */
  requests: ReplicateRecorded[];
  created: ReplicateCreated[];
  /** Ids of the predictions cancelled through the API. */
  cancels: string[];
  /** The account's webhook signing secret (`whsec_…`). */
  webhookSecret: string;
  /** Where webhooks go instead of the prediction's `webhook` (set once the receiver's port is known). */
  webhookTarget: string | null;
  /** Sign webhooks with another secret (a forgery our receiver must refuse). */
  forgeWebhooks: boolean;
  /** Answers of the webhook receiver, in order. */
  webhookAnswers: number[];
  /** Answer this output address instead of the fake's own file (an unsafe address, say). */
  outputUrlOverride: string | null;
  close(): Promise<void>;
}

interface Prediction {
  id: string;
  model: string;
  version: string;
  status: "starting" | "processing" | "succeeded" | "failed" | "canceled";
  input: Record<string, unknown>;
  output: string[] | null;
  error: string | null;
  logs: string;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  webhook: string | null;
  mode: ReplicateFakeMode;
  timer: NodeJS.Timeout | null;
  waiters: Array<() => void>;
}

/** Text-to-image models the fake knows (no `image` input), with their aspect ratios. */
const TEXT_MODELS = new Set(["qwen/qwen-image"]);
const QWEN_IMAGE_RATIOS = ["1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3"];

export async function startReplicateFake(opts: { token: string }): Promise<ReplicateFake> {
  const output = await sharp({ create: { width: 72, height: 54, channels: 3, background: "#36c" } })
    .png()
    .toBuffer();
  const predictions = new Map<string, Prediction>();
  let nextId = 1;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? "/", fake.url);
      fake.requests.push({
        method: req.method ?? "",
        path: url.pathname + url.search,
        headers: req.headers,
        body,
        at: Date.now(),
      });
      void handle(req, res, url, body).catch((err) => {
        if (!res.headersSent) problem(res, 500, "Internal server error", String(err));
      });
    });
  });

  const json = (
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const problem = (res: http.ServerResponse, status: number, title: string, detail: string, headers = {}) =>
    json(res, status, { title, detail, status }, headers);

  const view = (p: Prediction) => ({
    id: p.id,
    model: p.model,
    version: p.version,
    input: p.input,
    logs: p.logs,
    output: p.output,
    data_removed: false,
    error: p.error,
    status: p.status,
    created_at: p.created_at,
    started_at: p.started_at,
    completed_at: p.completed_at,
    urls: {
      cancel: `${fake.url}/v1/predictions/${p.id}/cancel`,
      get: `${fake.url}/v1/predictions/${p.id}`,
      stream: `${fake.url}/v1/predictions/${p.id}/stream`,
      web: `${fake.url}/p/${p.id}`,
    },
    ...(p.completed_at ? { metrics: { predict_time: fake.runMs / 1000 } } : {}),
  });

  function finish(p: Prediction, status: Prediction["status"]) {
    if (p.status === "succeeded" || p.status === "failed" || p.status === "canceled") return;
    if (p.timer) clearTimeout(p.timer);
    p.status = status;
    p.completed_at = new Date().toISOString();
    if (status === "succeeded") p.output = [fake.outputUrlOverride ?? `${fake.url}/files/${p.id}/out-0.png`];
    if (status === "failed") {
      p.error =
        p.mode === "nsfw"
          ? "All generated images contained NSFW content. Try running it again with a different prompt."
          : "CUDA out of memory. Tried to allocate 2.00 GiB";
    }
    for (const w of p.waiters.splice(0)) w();
    if (p.webhook) void deliverWebhook(p);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: Buffer) {
    const path = url.pathname;
    // Output files are public (no token), like replicate.delivery.
    const file = /^\/files\/([^/]+)\/out-0\.png$/.exec(path);
    if (req.method === "GET" && file) {
      if (!predictions.has(file[1]!)) return problem(res, 404, "Not found", "No such file");
      res.writeHead(200, { "content-type": "image/png", "content-length": String(output.length) });
      return res.end(output);
    }
    if (req.headers.authorization !== `Bearer ${opts.token}`) {
      return problem(res, 401, "Unauthenticated", "You did not pass a valid authentication token");
    }

    const create = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(path);
    if (req.method === "POST" && (create || path === "/v1/predictions")) {
      const failure = fake.createFailures.shift();
      if (failure) {
        return problem(
          res,
          failure.status,
          failure.status === 429 ? "Request was throttled" : "Internal server error",
          failure.status === 429 ? "Request was throttled. Expected available in 1 second." : "Try again",
          failure.retryAfter ? { "retry-after": failure.retryAfter } : {},
        );
      }
      if (fake.mode === "5xx") return problem(res, 503, "Service unavailable", "Try again later");
      let parsed: { version?: unknown; input?: unknown; webhook?: unknown; webhook_events_filter?: unknown };
      try {
        parsed = JSON.parse(body.toString("utf8")) as typeof parsed;
      } catch {
        return problem(res, 400, "Bad request", "Invalid JSON");
      }
      if (!create && typeof parsed.version !== "string") {
        return problem(res, 422, "Invalid version or not permitted", "The specified version does not exist");
      }
      const input = (parsed.input ?? {}) as Record<string, unknown>;
      const textModel = create !== null && TEXT_MODELS.has(`${create[1]}/${create[2]}`);
      if (textModel || create === null) {
        // Qwen-Image's schema: a prompt, and an aspect ratio from its list. A version names a
        // model the fake does not know: only its prompt is checked.
        const problems = [
          ...(typeof input.prompt !== "string" || !input.prompt ? ["- prompt is required"] : []),
          ...(textModel &&
          input.aspect_ratio !== undefined &&
          !QWEN_IMAGE_RATIOS.includes(String(input.aspect_ratio))
            ? [`- aspect_ratio: aspect_ratio must be one of the following: ${QWEN_IMAGE_RATIOS.join(", ")}`]
            : []),
        ];
        if (problems.length) {
          return json(res, 422, {
            title: "Input validation failed",
            detail: problems.join("\n"),
            status: 422,
            invalid_fields: [],
          });
        }
      } else if (typeof input.prompt !== "string" || !input.image) {
        return json(res, 422, {
          title: "Input validation failed",
          detail: "- prompt is required\n- image is required",
          status: 422,
          invalid_fields: [],
        });
      }
      const id = `fake${String(nextId++).padStart(6, "0")}`;
      const model = create ? `${create[1]}/${create[2]}` : "someone/some-model";
      const webhook = typeof parsed.webhook === "string" ? parsed.webhook : null;
      const p: Prediction = {
        id,
        model,
        version: create ? "hidden" : String(parsed.version),
        status: "starting",
        input,
        output: null,
        error: null,
        logs: "",
        created_at: new Date().toISOString(),
        started_at: null,
        completed_at: null,
        webhook,
        mode: fake.mode,
        timer: null,
        waiters: [],
      };
      predictions.set(id, p);
      fake.created.push({
        id,
        model: create ? model : null,
        version: create ? null : String(parsed.version),
        input,
        webhook,
        webhookEventsFilter: parsed.webhook_events_filter ?? null,
        prefer: (req.headers.prefer as string | undefined) ?? null,
      });
      setTimeout(() => {
        if (p.status === "starting") {
          p.status = "processing";
          p.started_at = new Date().toISOString();
        }
      }, 10);
      if (p.mode !== "stuck") {
        p.timer = setTimeout(() => finish(p, p.mode === "ok" ? "succeeded" : "failed"), fake.runMs);
      }
      // Prefer: wait=N holds the answer until the prediction ends or N seconds pass.
      const wait = /^wait(?:=(\d+))?$/.exec(String(req.headers.prefer ?? "").trim());
      if (wait) {
        const seconds = Math.min(60, Number(wait[1] ?? 60));
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, seconds * 1000);
          p.waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      return json(res, 201, view(p));
    }

    const one = /^\/v1\/predictions\/([^/]+)(\/cancel)?$/.exec(path);
    if (one) {
      const p = predictions.get(one[1]!);
      if (!p) return problem(res, 404, "Not found", "The requested resource could not be found");
      if (one[2] && req.method === "POST") {
        fake.cancels.push(p.id);
        finish(p, "canceled");
        return json(res, 200, view(p));
      }
      if (!one[2] && req.method === "GET") return json(res, 200, view(p));
      return problem(res, 405, "Method not allowed", `${req.method} ${path}`);
    }
    return problem(res, 404, "Not found", "The requested resource could not be found");
  }

  async function deliverWebhook(p: Prediction) {
    const target = fake.webhookTarget ?? p.webhook;
    if (!target) return;
    const body = JSON.stringify(view(p));
    const res = await postReplicateWebhook(
      target,
      body,
      fake.forgeWebhooks ? `whsec_${randomBytes(24).toString("base64")}` : fake.webhookSecret,
    ).catch(() => null);
    fake.webhookAnswers.push(res?.status ?? 0);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const fake: ReplicateFake = {
    url: `http://127.0.0.1:${port}`,
    mode: "ok",
    runMs: 150,
    createFailures: [],
    requests: [],
    created: [],
    cancels: [],
    webhookSecret: `whsec_${randomBytes(24).toString("base64")}`,
    webhookTarget: null,
    forgeWebhooks: false,
    webhookAnswers: [],
    outputUrlOverride: null,
    close: () =>
      new Promise((resolve) => {
        for (const p of predictions.values()) {
          if (p.timer) clearTimeout(p.timer);
          for (const w of p.waiters.splice(0)) w();
        }
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}

/** POSTs a webhook the way Replicate signs it (Standard Webhooks), with `secret`. */
export async function postReplicateWebhook(
  target: string,
  body: string,
  secret: string,
  opts: { id?: string; timestamp?: number; sendInstead?: string } = {},
): Promise<Response> {
  const id = opts.id ?? `msg_${randomBytes(12).toString("hex")}`;
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  return fetch(target, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signReplicateWebhook(secret, id, timestamp, body),
    },
    // A tampered delivery: signed for `body`, but another body is sent.
    body: opts.sendInstead ?? body,
  });
}
