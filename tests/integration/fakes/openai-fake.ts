import http from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";

/**
 * A local stand-in for OpenAI's Images API: the edit endpoint (`POST /v1/images/edits`),
 * whose multipart body it parses as the real API does (repeated `image[]` fields, or one
 * `image`), and the generation endpoint (`POST /v1/images/generations`, a JSON body without
 * images; an unknown parameter is refused as the API does). It checks the bearer key and
 * answers `{created, data: [{b64_json}], usage}` with a real PNG shaped like the requested
 * size, or the API's error bodies. Tests script its answers and read what it received.
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
  /** Which endpoint was called. */
  endpoint: "edits" | "generations";
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
  /** Every edits and generations call received (failed ones included), in order. */
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
    const endpoint =
      url.pathname === "/v1/images/edits"
        ? "edits"
        : url.pathname === "/v1/images/generations"
          ? "generations"
          : null;
    if (req.method !== "POST" || !endpoint) {
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
    const call = endpoint === "edits" ? await parseMultipart(req, body) : parseJson(req, body);
    fake.calls.push(call);
    if (call.unknown) {
      return json(res, 400, {
        error: {
          message: `Unknown parameter: '${call.unknown}'.`,
          type: "invalid_request_error",
          param: call.unknown,
          code: "unknown_parameter",
        },
      });
    }

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
    if (!call.fields.prompt || (endpoint === "edits" && call.images.length === 0)) {
      const param = call.fields.prompt ? "image" : "prompt";
      return json(res, 400, {
        error: {
          message: `Missing required parameter: '${param}'.`,
          type: "invalid_request_error",
          param,
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

/** Parameters the generations endpoint takes (anything else: 400 unknown_parameter). */
const GENERATION_PARAMS = new Set([
  "model",
  "prompt",
  "n",
  "size",
  "quality",
  "background",
  "moderation",
  "output_compression",
  "output_format",
  "style",
  "user",
  "response_format",
]);

/** Parses the generations call's JSON body; its values are recorded as text, as the form's are. */
function parseJson(req: http.IncomingMessage, body: Buffer): OpenAIEditCall & { unknown?: string } {
  const call: OpenAIEditCall & { unknown?: string } = {
    at: Date.now(),
    endpoint: "generations",
    headers: req.headers,
    fields: {},
    images: [],
  };
  let data: unknown;
  try {
    data = JSON.parse(body.toString("utf8"));
  } catch {
    return call;
  }
  for (const [name, value] of Object.entries((data ?? {}) as Record<string, unknown>)) {
    if (!GENERATION_PARAMS.has(name)) call.unknown ??= name;
    call.fields[name] = String(value);
  }
  return call;
}

/** Parses a multipart/form-data body with the platform's own parser (undici's). */
async function parseMultipart(
  req: http.IncomingMessage,
  body: Buffer,
): Promise<OpenAIEditCall & { unknown?: string }> {
  const call: OpenAIEditCall = {
    at: Date.now(),
    endpoint: "edits",
    headers: req.headers,
    fields: {},
    images: [],
  };
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
