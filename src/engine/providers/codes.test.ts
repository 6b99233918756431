import fs from "node:fs";
import path from "node:path";
import { ApiError } from "@google/genai";
import type { GenerateContentResponse } from "@google/genai";
import { describe, expect, it } from "vitest";
import { EngineError } from "@/core/ports/renderer";
import { ProviderCodes } from "./codes";
import { falFailure } from "./fal/fal";
import { BLOCK_REASONS, FINISH_REASONS, geminiFailure, imageFrom } from "./gemini/gemini";
import { createProviderFetch, ProviderHttpError } from "./http";
import { readOutputImage } from "./images";
import { RouterCodes, routerError, RouterReasons } from "./router";

/**
 * Every failure a hosted provider reports carries a code whose translated message
 * (`errors.server.task_<code>`) exists, so users read it in their own language. The
 * other locales are held to the English keys by src/i18n/messages.test.ts.
 */

const ROOT = path.resolve(__dirname, "../../..");
const server = (
  JSON.parse(fs.readFileSync(path.join(ROOT, "messages/en/errors.json"), "utf8")) as {
    errors: { server: Record<string, string> };
  }
).errors.server;

const CODES = new Set<string>(Object.values(ProviderCodes));

/** The error a call threw (or returned), checked to be an EngineError with a translated code. */
function expectTranslated(err: unknown): EngineError {
  expect(err).toBeInstanceOf(EngineError);
  const e = err as EngineError;
  expect(CODES, `${e.code} (${e.reason})`).toContain(e.code);
  expect(server[`task_${e.code}`], `messages/en/errors.json: errors.server.task_${e.code}`).toBeTruthy();
  return e;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error("expected a throw");
}

describe("provider failure codes", () => {
  it("has an English message, refunding credits, for every code", () => {
    for (const code of CODES) {
      const text = server[`task_${code}`];
      expect(text, `errors.server.task_${code}`).toBeTruthy();
      expect(text).toMatch(/Your credits have been refunded\.$/);
    }
  });

  it("codes every Gemini finish reason, and reads unknown ones as OTHER", () => {
    for (const [finishReason, expected] of Object.entries(FINISH_REASONS)) {
      const response = {
        candidates: [{ finishReason, content: { parts: [{ text: "no" }] } }],
      } as unknown as GenerateContentResponse;
      const e = expectTranslated(thrown(() => imageFrom(response)));
      if (finishReason === "NO_IMAGE") continue; // not a real finish reason; STOP reads as it
      expect({ code: e.code, reason: e.reason }).toEqual({ code: expected.code, reason: expected.text });
    }
    const stop = { candidates: [{ finishReason: "STOP" }] } as unknown as GenerateContentResponse;
    expect(expectTranslated(thrown(() => imageFrom(stop))).code).toBe(ProviderCodes.noImage);
    const unknown = { candidates: [{ finishReason: "SOMETHING_NEW" }] } as unknown as GenerateContentResponse;
    expect(expectTranslated(thrown(() => imageFrom(unknown))).reason).toBe(FINISH_REASONS.OTHER!.text);
  });

  it("codes every Gemini prompt block reason", () => {
    for (const [blockReason, expected] of Object.entries(BLOCK_REASONS)) {
      const response = { promptFeedback: { blockReason } } as unknown as GenerateContentResponse;
      const e = expectTranslated(thrown(() => imageFrom(response)));
      expect({ code: e.code, reason: e.reason }).toEqual({ code: expected.code, reason: expected.text });
    }
  });

  it("codes Gemini's API and transport errors", () => {
    for (const status of [400, 401, 403, 404, 409, 429, 500, 503]) {
      expectTranslated(geminiFailure(new ApiError({ message: "x", status })));
    }
    expect(expectTranslated(geminiFailure(new TypeError("fetch failed"))).code).toBe(ProviderCodes.busy);
  });

  it("codes fal's error answers", () => {
    const bodies = [
      null,
      { detail: [{ type: "content_policy_violation" }] },
      { detail: [{ type: "image_load_error" }] },
      { error_type: "image_too_small" },
      { detail: "something else" },
    ];
    for (const status of [400, 401, 403, 422, 429, 500, 504]) {
      for (const body of bodies) expectTranslated(falFailure(status, body));
    }
    expect(falFailure(422, null, "Request timeout").code).toBe(ProviderCodes.busy);
  });

  it("codes the router's own failures", () => {
    for (const why of Object.keys(RouterReasons) as Array<keyof typeof RouterReasons>) {
      const e = expectTranslated(routerError(why));
      expect({ code: e.code, reason: e.reason }).toEqual({
        code: RouterCodes[why],
        reason: RouterReasons[why],
      });
    }
  });

  it("codes an unreadable output image", async () => {
    const err = await readOutputImage(new Uint8Array([1, 2, 3])).catch((e: unknown) => e);
    expect(expectTranslated(err).code).toBe(ProviderCodes.badOutput);
  });

  it("codes a provider that keeps answering 429 or 5xx", async () => {
    for (const status of [0, 429, 503]) {
      const fetchFn = createProviderFetch({
        provider: "test",
        policy: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, attemptTimeoutMs: 0 },
        fetch: (async () => {
          if (status === 0) throw new TypeError("fetch failed");
          return new Response(null, { status });
        }) as typeof fetch,
      });
      const err = await fetchFn("https://example.test/").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderHttpError);
      expect(expectTranslated(err).code).toBe(ProviderCodes.busy);
    }
  });

  it("gives every EngineError created in the provider sources a code", () => {
    const dir = __dirname;
    let found = 0;
    // Every hosted provider's folder (the local engine's refusals carry the effects' own codes).
    const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter(
      (f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.startsWith("local"),
    );
    for (const file of files) {
      const source = fs.readFileSync(path.join(dir, file), "utf8");
      for (const args of constructorArgs(source, "new EngineError(")) {
        found++;
        expect(args.length, `${file}: new EngineError(${args.join(", ")})`).toBe(3);
      }
    }
    expect(found).toBeGreaterThan(10);
  });
});

/** The top-level arguments of each `<opening>…)` call in a source file (strings skipped). */
function constructorArgs(source: string, opening: string): string[][] {
  const calls: string[][] = [];
  for (let at = source.indexOf(opening); at !== -1; at = source.indexOf(opening, at + 1)) {
    const args: string[] = [];
    let depth = 0;
    let current = "";
    for (let i = at + opening.length; i < source.length; i++) {
      const ch = source[i]!;
      if (ch === '"' || ch === "'" || ch === "`") {
        const end = closingQuote(source, i);
        current += source.slice(i, end + 1);
        i = end;
        continue;
      }
      if ("([{".includes(ch)) depth++;
      if (")]}".includes(ch)) {
        if (depth === 0) break;
        depth--;
      }
      if (ch === "," && depth === 0) {
        args.push(current.trim());
        current = "";
        continue;
      }
      current += ch;
    }
    if (current.trim()) args.push(current.trim());
    calls.push(args);
  }
  return calls;
}

function closingQuote(source: string, start: number): number {
  const quote = source[start];
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === quote) return i;
  }
  return source.length - 1;
}
