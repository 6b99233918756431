import { PROMPT_TABLE, type AspectRatio } from "../../prompts";
import { EngineError, type Renderer, type RenderRequest, type RenderResult } from "@/core/ports/renderer";
import { ProviderCodes } from "../codes";
import {
  createProviderFetch,
  DEFAULT_RETRY,
  ProviderHttpError,
  providerStruggling,
  providerUnavailable,
  type RetryPolicy,
  unreadablePhoto,
} from "../http";
import { inputSize, readOutputImage } from "../images";
import { promptFor } from "../prompt-for";

/**
 * OpenAI's GPT Image models through the Images API's edit endpoint
 * (`POST /v1/images/edits`, multipart/form-data): every input image, the effect's prompt,
 * the model, `n=1` and a size chosen from the effect's aspect ratio go in one call, and
 * the image comes back inline as base64 (`data[0].b64_json`; GPT Image models never
 * answer with a URL). A request without images (the generic generate call's text-to-image)
 * goes to the generation endpoint (`POST /v1/images/generations`, JSON) with the same
 * fields and the same answer. There is no job to cancel: aborting the HTTP call is all there is.
 *
 * Plain fetch and FormData (Node 20 has both) through our retry layer, rather than the
 * openai SDK: one retry policy, ours, honouring Retry-After.
 */

export const OPENAI_PROVIDER_ID = "openai";
export const OPENAI_DEFAULT_MODEL = "gpt-image-1";
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com";

/** Output sizes gpt-image-1 accepts besides "auto": square, landscape, portrait. */
export const OPENAI_SIZES = ["1024x1024", "1536x1024", "1024x1536"] as const;
export type OpenAISize = (typeof OPENAI_SIZES)[number] | "auto";

export interface OpenAIProviderOptions {
  /** OPENAI_API_KEY. */
  apiKey: string;
  /** The API origin (tests' fake server); default OpenAI's. */
  baseUrl?: string;
  /** Image model id; default gpt-image-1. */
  model?: string;
  /** `quality` of the edit (low, medium, high, auto); unset: the API's default. */
  quality?: "low" | "medium" | "high" | "auto";
  /** `input_fidelity` (gpt-image-1: "high" keeps faces closer, at a higher price); unset: the API's default. */
  inputFidelity?: "low" | "high";
  retry?: RetryPolicy;
  log?: (msg: string, extra?: Record<string, unknown>) => void;
}

/** The Images API's error body: `{ error: { message, type, param, code } }`. */
interface OpenAIErrorBody {
  error?: { message?: unknown; type?: unknown; code?: unknown; param?: unknown };
}

const TRY_ANOTHER = "Please try a different photo.";

export class OpenAIProvider implements Renderer {
  readonly id = OPENAI_PROVIDER_ID;
  readonly model: string;
  private readonly fetch: typeof fetch;
  private readonly endpoint: string;
  private readonly generationsEndpoint: string;

  constructor(private readonly opts: OpenAIProviderOptions) {
    this.model = opts.model ?? OPENAI_DEFAULT_MODEL;
    this.endpoint = new URL("/v1/images/edits", opts.baseUrl ?? OPENAI_DEFAULT_BASE_URL).toString();
    this.generationsEndpoint = new URL(
      "/v1/images/generations",
      opts.baseUrl ?? OPENAI_DEFAULT_BASE_URL,
    ).toString();
    this.fetch = createProviderFetch({
      provider: this.id,
      // One edit call is the whole render and GPT Image can take well over a minute:
      // only the router's time limit bounds it, unless the caller sets one.
      policy: opts.retry ?? { ...DEFAULT_RETRY, attemptTimeoutMs: 0 },
      onRetry: (info) => opts.log?.("openai retry", info),
    });
  }

  supports(effectId: string): boolean {
    // Every effect and both free-form ids (text-to-image through the generations endpoint).
    return effectId in PROMPT_TABLE;
  }

  async render(request: RenderRequest, signal?: AbortSignal): Promise<RenderResult> {
    const prompt = await promptFor(request);
    const size = await sizeFor(prompt.aspectRatio, request.images[0]?.bytes);
    const [url, body] =
      request.images.length === 0
        ? [this.generationsEndpoint, this.generationBody(prompt.text, size)]
        : [this.endpoint, this.editForm(request, prompt.text, size)];

    let res: Response;
    try {
      res = await this.fetch(url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.opts.apiKey}`,
          accept: "application/json",
          ...(typeof body === "string" ? { "content-type": "application/json" } : {}),
        },
        body,
        signal,
      });
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      if (err instanceof EngineError) throw err;
      this.opts.log?.("openai call failed", { err: String(err) });
      throw new ProviderHttpError(
        this.id,
        0,
        "The image service could not be reached. Please try again in a few minutes.",
      );
    }
    let answer: unknown;
    try {
      answer = await res.json();
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      answer = null;
    }
    if (!res.ok) {
      const failure = openaiFailure(res.status, answer);
      this.opts.log?.("openai error", { status: res.status, code: failure.code, body: errorSummary(answer) });
      throw failure;
    }
    const bytes = imageFrom(answer);
    const out = await readOutputImage(bytes);
    return { ...out, provider: this.id, model: this.model };
  }

  /** The generations call's JSON body (text-to-image): the edit's fields without the images. */
  private generationBody(prompt: string, size: OpenAISize): string {
    return JSON.stringify({
      model: this.model,
      prompt,
      n: 1,
      size,
      ...(this.opts.quality ? { quality: this.opts.quality } : {}),
    });
  }

  /** The edits call's multipart body: every input image, then the text fields. */
  private editForm(request: RenderRequest, prompt: string, size: OpenAISize): FormData {
    const form = new FormData();
    // gpt-image-1 takes up to 16 images; several go as repeated `image[]` fields.
    const field = request.images.length > 1 ? "image[]" : "image";
    request.images.forEach((img, i) => {
      form.append(
        field,
        new Blob([new Uint8Array(img.bytes)], { type: img.mime }),
        `input-${i + 1}.${extensionFor(img.mime)}`,
      );
    });
    form.append("prompt", prompt);
    form.append("model", this.model);
    form.append("n", "1");
    form.append("size", size);
    if (this.opts.quality) form.append("quality", this.opts.quality);
    if (this.opts.inputFidelity) form.append("input_fidelity", this.opts.inputFidelity);
    return form;
  }
}

/** createOpenAIProvider({apiKey, baseUrl, model, retry, log}): the OpenAI renderer. */
export function createOpenAIProvider(opts: OpenAIProviderOptions): OpenAIProvider {
  return new OpenAIProvider(opts);
}

/**
 * The gpt-image-1 size for an effect: its aspect ratio if the prompt table gives one, else
 * the first input's shape, mapped to the nearest of the three sizes on a log scale (4:5
 * and 3:4 go portrait, 5:4 and 4:3 landscape); "auto" when neither is known.
 */
export async function sizeFor(
  aspectRatio: AspectRatio | undefined,
  firstImage?: Uint8Array,
): Promise<OpenAISize> {
  let ratio: number | undefined;
  if (aspectRatio) {
    const [w, h] = aspectRatio.split(":").map(Number) as [number, number];
    ratio = w / h;
  } else if (firstImage) {
    const size = await inputSize(firstImage);
    if (size) ratio = size.width / size.height;
  }
  if (!ratio || !Number.isFinite(ratio)) return "auto";
  return nearestSize(ratio);
}

/** The supported size closest to `ratio` (width / height), compared on a log scale. */
export function nearestSize(ratio: number): Exclude<OpenAISize, "auto"> {
  let best: Exclude<OpenAISize, "auto"> = "1024x1024";
  let bestDistance = Infinity;
  for (const size of OPENAI_SIZES) {
    const [w, h] = size.split("x").map(Number) as [number, number];
    const distance = Math.abs(Math.log(w / h) - Math.log(ratio));
    if (distance < bestDistance - 1e-9) {
      best = size;
      bestDistance = distance;
    }
  }
  return best;
}

/** The first image of a successful answer, decoded from `data[0].b64_json`. */
export function imageFrom(body: unknown): Uint8Array {
  const data = (body as { data?: Array<{ b64_json?: unknown }> } | null)?.data;
  const b64 = Array.isArray(data) ? data[0]?.b64_json : undefined;
  if (typeof b64 !== "string" || b64.length === 0) {
    throw new EngineError(
      "The image service did not return an image. Please try again.",
      false,
      ProviderCodes.noImage,
    );
  }
  return new Uint8Array(Buffer.from(b64, "base64"));
}

/**
 * Maps an error answer of the Images API to a reason. A safety refusal is a 400 with
 * `error.code` "moderation_blocked" (GPT Image; `type` "image_generation_user_error") or
 * "content_policy_violation" (the DALL-E models): not retryable, the photo or the request
 * must change. 401/403/404 are the operator's problem (key, organisation verification,
 * model access): retryable, so the circuit breaker routes to the fallback.
 */
export function openaiFailure(status: number, body: unknown): EngineError {
  const err = (body as OpenAIErrorBody | null)?.error;
  const code = typeof err?.code === "string" ? err.code.toLowerCase() : "";
  const type = typeof err?.type === "string" ? err.type.toLowerCase() : "";
  const message = typeof err?.message === "string" ? err.message.toLowerCase() : "";
  if (
    code === "moderation_blocked" ||
    code === "content_policy_violation" ||
    (status === 400 && message.includes("safety system"))
  ) {
    return new EngineError(
      `The image service's safety filter blocked this request. ${TRY_ANOTHER}`,
      false,
      ProviderCodes.safetyBlocked,
    );
  }
  if (status === 401 || status === 403 || status === 404) {
    return providerUnavailable();
  }
  if (status === 429 || status >= 500) {
    // Only reached if the retry layer handed the answer back (it throws on its own otherwise).
    return providerStruggling(OPENAI_PROVIDER_ID, status);
  }
  if (type === "image_generation_user_error" || code.includes("image") || status === 400 || status === 413) {
    return unreadablePhoto();
  }
  return new EngineError(
    "The image service answered unexpectedly. Please try again.",
    true,
    ProviderCodes.unexpected,
  );
}

function errorSummary(body: unknown): Record<string, unknown> | null {
  const err = (body as OpenAIErrorBody | null)?.error;
  return err ? { code: err.code, type: err.type, param: err.param } : null;
}

function extensionFor(mime: string): string {
  if (mime === "image/jpeg") return "jpg";
  if (mime === "image/webp") return "webp";
  return "png";
}
