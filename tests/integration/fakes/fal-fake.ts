import { createHash, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";

/**
 * A local stand-in for fal.ai that speaks the protocol @fal-ai/client and our provider
 * use: storage upload (initiate, then PUT), the queue (submit, status, result, cancel,
 * with the status/response/cancel URLs in the submit answer) and, in webhook mode, a
 * signed POST to `fal_webhook` with the keys served as a JWKS. Tests script its answers
 * and read what it received.
 */

export type FalFakeMode = "ok" | "never" | "safety" | "submit-5xx";

export interface FalRecorded {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

export interface FalFake {
  url: string;
  /** Behaviour of the next jobs. */
  mode: FalFakeMode;
  /** Statuses answered to the next submits before one is accepted (e.g. [429]). */
  submitFailures: Array<{ status: number; retryAfter?: string }>;
  /** Status polls answered IN_PROGRESS before COMPLETED. */
  pollsBeforeDone: number;
  /** Every request received, in order. */
  requests: FalRecorded[];
  /** Submitted job inputs (parsed JSON), in order. */
  submits: Array<{ model: string; input: Record<string, unknown>; webhook: string | null }>;
  cancels: string[];
  /** Bytes uploaded to "fal storage". */
  uploads: Buffer[];
  /** Where webhooks go instead of `fal_webhook` (the API's port is known only after start). */
  webhookTarget: string | null;
  /** Answers of our webhook endpoint, in order. */
  webhookAnswers: number[];
  /** Signs webhooks with this key (served at /.well-known/jwks.json). */
  webhookKey: KeyObject;
  close(): Promise<void>;
}

interface Job {
  id: string;
  app: string;
  polls: number;
  mode: FalFakeMode;
  cancelled: boolean;
}

export async function startFalFake(opts: { key: string }): Promise<FalFake> {
  const output = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#c33" } })
    .png()
    .toBuffer();
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const jobs = new Map<string, Job>();
  const files = new Map<string, Buffer>();
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
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ detail: String(err) }));
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
  const authorized = (req: http.IncomingMessage) => req.headers.authorization === `Key ${opts.key}`;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: Buffer) {
    const path = url.pathname;
    if (path === "/.well-known/jwks.json") {
      return json(res, 200, { keys: [{ ...publicKey.export({ format: "jwk" }), kid: "fake-1" }] });
    }
    // fal storage: initiate, then PUT the bytes to upload_url.
    if (req.method === "POST" && path === "/storage/upload/initiate") {
      if (!authorized(req)) return json(res, 401, { detail: "Unauthorized" });
      const id = `in-${nextId++}`;
      return json(res, 200, { upload_url: `${fake.url}/upload/${id}`, file_url: `${fake.url}/files/${id}` });
    }
    if (req.method === "PUT" && path.startsWith("/upload/")) {
      files.set(path.slice("/upload/".length), body);
      fake.uploads.push(body);
      return json(res, 200, {});
    }
    if (req.method === "GET" && path.startsWith("/files/")) {
      const f = path === "/files/out.png" ? output : files.get(path.slice("/files/".length));
      if (!f) return json(res, 404, { detail: "Not found" });
      res.writeHead(200, { "content-type": "image/png", "content-length": String(f.length) });
      return res.end(f);
    }

    // Queue: /{owner}/{alias}/requests/{id}[/status|/cancel]
    const m = /^\/([^/]+)\/([^/]+)\/requests\/([^/]+)(\/status|\/cancel)?$/.exec(path);
    if (m) {
      if (!authorized(req)) return json(res, 401, { detail: "Unauthorized" });
      const job = jobs.get(m[3]!);
      if (!job) return json(res, 404, { detail: "Request not found" });
      const base = `${fake.url}/${job.app}/requests/${job.id}`;
      if (m[4] === "/cancel" && req.method === "PUT") {
        job.cancelled = true;
        fake.cancels.push(job.id);
        return json(res, 202, { status: "CANCELLATION_REQUESTED" });
      }
      if (m[4] === "/status" && req.method === "GET") {
        const done = job.mode !== "never" && job.polls++ >= fake.pollsBeforeDone;
        return json(res, 200, {
          status: done ? "COMPLETED" : job.polls > 1 ? "IN_PROGRESS" : "IN_QUEUE",
          request_id: job.id,
          response_url: base,
          status_url: `${base}/status`,
          cancel_url: `${base}/cancel`,
          queue_position: 0,
          logs: null,
        });
      }
      if (!m[4] && req.method === "GET") return result(res, job);
      return json(res, 405, { detail: "Method not allowed" });
    }

    // Submit: POST /{owner}/{alias}[/{path}]
    if (req.method === "POST" && /^\/[^/]+\/[^/]+(\/[^/]+)?$/.test(path)) {
      if (!authorized(req)) return json(res, 401, { detail: "Unauthorized" });
      const failure = fake.submitFailures.shift();
      if (failure) {
        return json(
          res,
          failure.status,
          { detail: "Busy" },
          failure.retryAfter ? { "retry-after": failure.retryAfter } : {},
        );
      }
      if (fake.mode === "submit-5xx") return json(res, 503, { detail: "Service unavailable" });
      const [, owner, alias] = path.split("/");
      const app = `${owner}/${alias}`;
      const id = `req-${nextId++}`;
      const job: Job = { id, app, polls: 0, mode: fake.mode, cancelled: false };
      jobs.set(id, job);
      const webhook = url.searchParams.get("fal_webhook");
      fake.submits.push({ model: path.slice(1), input: JSON.parse(body.toString("utf8")), webhook });
      const base = `${fake.url}/${app}/requests/${id}`;
      if (webhook) setTimeout(() => void deliverWebhook(webhook, job), 30);
      return json(res, 200, {
        status: "IN_QUEUE",
        request_id: id,
        response_url: base,
        status_url: `${base}/status`,
        cancel_url: `${base}/cancel`,
        queue_position: 0,
      });
    }
    return json(res, 404, { detail: "Not found" });
  }

  function resultBody(job: Job): { status: number; body: unknown } {
    if (job.mode === "safety") {
      return {
        status: 422,
        body: {
          detail: [
            {
              loc: ["body", "image_urls"],
              msg: "The content could not be processed because it contained material flagged by a content checker.",
              type: "content_policy_violation",
              url: "https://docs.fal.ai/errors#content_policy_violation",
            },
          ],
        },
      };
    }
    return {
      status: 200,
      body: {
        images: [{ url: `${fake.url}/files/out.png`, content_type: "image/png", width: 64, height: 48 }],
        description: "",
      },
    };
  }

  function result(res: http.ServerResponse, job: Job) {
    const r = resultBody(job);
    json(res, r.status, r.body, r.status === 422 ? { "x-fal-retryable": "false" } : {});
  }

  async function deliverWebhook(target: string, job: Job) {
    if (job.mode === "never") return;
    const r = resultBody(job);
    const payload =
      r.status === 200
        ? { request_id: job.id, gateway_request_id: job.id, status: "OK", payload: r.body }
        : {
            request_id: job.id,
            gateway_request_id: job.id,
            status: "ERROR",
            error: `Invalid status code: ${r.status}`,
            payload: r.body,
          };
    const res = await postSigned(fake.webhookTarget ?? target, payload, privateKey, job.id);
    fake.webhookAnswers.push(res.status);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FalFake = {
    url: `http://127.0.0.1:${port}`,
    mode: "ok",
    submitFailures: [],
    pollsBeforeDone: 2,
    requests: [],
    submits: [],
    cancels: [],
    uploads: [],
    webhookTarget: null,
    webhookAnswers: [],
    webhookKey: privateKey,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}

/** POSTs a webhook the way fal signs it: ED25519 over id, user, timestamp and the body's SHA-256. */
export async function postSigned(
  target: string,
  payload: unknown,
  key: KeyObject,
  requestId: string,
  opts: { timestamp?: number; userId?: string; sendInstead?: unknown } = {},
): Promise<Response> {
  const body = Buffer.from(JSON.stringify(payload));
  // A tampered delivery: signed for `payload`, but another body is sent.
  const sent = opts.sendInstead === undefined ? body : Buffer.from(JSON.stringify(opts.sendInstead));
  const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  const userId = opts.userId ?? "fake-user";
  const digest = createHash("sha256").update(body).digest("hex");
  const signature = sign(null, Buffer.from(`${requestId}\n${userId}\n${timestamp}\n${digest}`), key).toString(
    "hex",
  );
  return fetch(target, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-fal-webhook-request-id": requestId,
      "x-fal-webhook-user-id": userId,
      "x-fal-webhook-timestamp": timestamp,
      "x-fal-webhook-signature": signature,
    },
    body: sent,
  });
}
