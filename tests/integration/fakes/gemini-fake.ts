import http from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";

/**
 * A local stand-in for the Gemini API's generateContent, as @google/genai calls it:
 * POST {base}/v1beta/models/{model}:generateContent with the key in x-goog-api-key and
 * the images inline. Tests script the answer and read what it received.
 */

export type GeminiAnswer =
  | { kind: "image" }
  | { kind: "status"; status: number; retryAfter?: string }
  | { kind: "finish"; finishReason: string }
  | { kind: "blocked"; blockReason: string }
  | { kind: "hang" };

export interface GeminiCall {
  model: string;
  headers: http.IncomingHttpHeaders;
  body: {
    contents?: Array<{ parts?: Array<{ text?: string; inlineData?: { mimeType: string; data: string } }> }>;
    generationConfig?: Record<string, unknown>;
  };
  at: number;
}

export interface GeminiFake {
  url: string;
  /** Answers for the next calls, in order; when empty, `fallbackAnswer`. */
  answers: GeminiAnswer[];
  fallbackAnswer: GeminiAnswer;
  calls: GeminiCall[];
  /** Calls whose client hung up before an answer (the SDK's abort). */
  aborted: number;
  close(): Promise<void>;
}

export async function startGeminiFake(opts: { key: string }): Promise<GeminiFake> {
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#3a6" } })
    .png()
    .toBuffer();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(body));
      };
      const m = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(
        new URL(req.url ?? "/", fake.url).pathname,
      );
      if (req.method !== "POST" || !m)
        return json(404, { error: { code: 404, message: "Not found", status: "NOT_FOUND" } });
      if (req.headers["x-goog-api-key"] !== opts.key) {
        return json(400, { error: { code: 400, message: "API key not valid.", status: "INVALID_ARGUMENT" } });
      }
      fake.calls.push({
        model: m[1]!,
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as GeminiCall["body"],
        at: Date.now(),
      });
      const answer = fake.answers.shift() ?? fake.fallbackAnswer;
      switch (answer.kind) {
        case "image":
          return json(200, {
            candidates: [
              {
                content: {
                  role: "model",
                  parts: [{ inlineData: { mimeType: "image/png", data: png.toString("base64") } }],
                },
                finishReason: "STOP",
                index: 0,
              },
            ],
            modelVersion: m[1],
            usageMetadata: { promptTokenCount: 300, candidatesTokenCount: 1290, totalTokenCount: 1590 },
          });
        case "status":
          return json(
            answer.status,
            {
              error: {
                code: answer.status,
                message:
                  answer.status === 429
                    ? "Resource has been exhausted (e.g. check quota)."
                    : "Internal error encountered.",
                status: answer.status === 429 ? "RESOURCE_EXHAUSTED" : "INTERNAL",
              },
            },
            answer.retryAfter ? { "retry-after": answer.retryAfter } : {},
          );
        case "finish":
          return json(200, {
            candidates: [
              { content: { role: "model", parts: [] }, finishReason: answer.finishReason, index: 0 },
            ],
            modelVersion: m[1],
          });
        case "blocked":
          return json(200, { promptFeedback: { blockReason: answer.blockReason }, modelVersion: m[1] });
        case "hang":
          // Never answer; count the client giving up.
          res.on("close", () => {
            if (!res.writableEnded) fake.aborted++;
          });
          return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const fake: GeminiFake = {
    url: `http://127.0.0.1:${port}`,
    answers: [],
    fallbackAnswer: { kind: "image" },
    calls: [],
    aborted: 0,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}
