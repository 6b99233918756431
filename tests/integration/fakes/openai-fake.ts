import http from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";

/**
 * A local stand-in for OpenAI's Images API edit endpoint (`POST /v1/images/edits`): it
 * parses the multipart body as the real API does (repeated `image[]` fields, or one
 * `image`), checks the bearer key, and answers `{created, data: [{b64_json}], usage}`
 * with a real PNG shaped like the requested size, or the API's error bodies. Tests
 * script its answers and read what it received.
 */

export type OpenAIFakeMode = "ok" | "moderation" | "5xx" | "no-image";

export interface OpenAIFakeImage {
  field: string;
  filename: string;
  type: string;
  bytes: Buffer;
}

export interface OpenAIEditCall {
  at: number;
  headers: http.IncomingHttpHeaders;
  /** Text fields (prompt, model, n, size, …). */
  fields: Record<string, string>;
  images: OpenAIFakeImage[];
}

export interface OpenAIFake {
  url: string;
  /** Behaviour of the next calls. */
  mode: OpenAIFakeMode;
  /** Statuses answered to the next calls before the mode applies (e.g. [{status: 429, retryAfter: "1"}]). */
  failures: Array<{ status: number; retryAfter?: string }>;
  /** Every edits call received (failed ones included), in order. */
  calls: OpenAIEditCall[];
  close(): Promise<void>;
}

export async function startOpenAIFake(opts: { apiKey: string }): Promise<OpenAIFake> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void handle(req, res, Buffer.concat(chunks)).catch((err) => {
        json(res, 500, { error: { message: String(err), type: "server_error", param: null, code: null } });
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

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) {
    const url = new URL(req.url ?? "/", fake.url);
    if (req.method !== "POST" || url.pathname !== "/v1/images/edits") {
      return json(res, 404, {
        error: { message: `Invalid URL (${req.method} ${url.pathname})`, type: "invalid_request_error" },
      });
    }
    if (req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      return json(res, 401, {
        error: {
          message: "Incorrect API key provided.",
          type: "invalid_request_error",
          param: null,
          code: "invalid_api_key",
        },
      });
    }
    const call = await parseMultipart(req, body);
    fake.calls.push(call);

    const failure = fake.failures.shift();
    if (failure) {
      return json(
        res,
        failure.status,
        {
          error: {
            message: failure.status === 429 ? "Rate limit reached for requests." : "The server had an error.",
            type: failure.status === 429 ? "requests" : "server_error",
            param: null,
            code: failure.status === 429 ? "rate_limit_exceeded" : null,
          },
        },
        failure.retryAfter ? { "retry-after": failure.retryAfter } : {},
      );
    }
    if (fake.mode === "5xx") {
      return json(res, 503, {
        error: {
          message: "The engine is currently overloaded.",
          type: "server_error",
          param: null,
          code: null,
        },
      });
    }
    if (!call.fields.prompt || call.images.length === 0) {
      return json(res, 400, {
        error: {
          message: "Missing required parameter: 'image'.",
          type: "invalid_request_error",
          param: "image",
          code: "missing_required_parameter",
        },
      });
    }
    if (fake.mode === "moderation") {
      // The shape GPT Image answers when its safety system refuses (input or output stage).
      return json(res, 400, {
        error: {
          message:
            "Your request was rejected by the safety system. If you believe this is an error, contact us at help.openai.com and include the request ID req_fake.",
          type: "image_generation_user_error",
          param: null,
          code: "moderation_blocked",
          moderation_details: { moderation_stage: "input", categories: ["other"] },
        },
      });
    }
    if (fake.mode === "no-image") return json(res, 200, { created: nowSeconds(), data: [] });

    // A small PNG with the requested shape (1/16 of the size; "auto" gives a square).
    const m = /^(\d+)x(\d+)$/.exec(call.fields.size ?? "");
    const w = m ? Math.round(Number(m[1]) / 16) : 64;
    const h = m ? Math.round(Number(m[2]) / 16) : 64;
    const png = await sharp({ create: { width: w, height: h, channels: 3, background: "#3a7" } })
      .png()
      .toBuffer();
    return json(res, 200, {
      created: nowSeconds(),
      background: "opaque",
      output_format: "png",
      quality: "medium",
      size: call.fields.size ?? "auto",
      data: [{ b64_json: png.toString("base64") }],
      usage: {
        input_tokens: 50,
        input_tokens_details: { image_tokens: 40, text_tokens: 10 },
        output_tokens: 272,
        total_tokens: 322,
      },
    });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const fake: OpenAIFake = {
    url: `http://127.0.0.1:${port}`,
    mode: "ok",
    failures: [],
    calls: [],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}

/** Parses a multipart/form-data body with the platform's own parser (undici's). */
async function parseMultipart(req: http.IncomingMessage, body: Buffer): Promise<OpenAIEditCall> {
  const call: OpenAIEditCall = { at: Date.now(), headers: req.headers, fields: {}, images: [] };
  const contentType = req.headers["content-type"] ?? "";
  if (!contentType.startsWith("multipart/form-data")) return call;
  const form = await new Response(new Uint8Array(body), {
    headers: { "content-type": contentType },
  }).formData();
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") {
      call.fields[name] = value;
    } else {
      call.images.push({
        field: name,
        filename: value.name,
        type: value.type,
        bytes: Buffer.from(await value.arrayBuffer()),
      });
    }
  }
  return call;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
