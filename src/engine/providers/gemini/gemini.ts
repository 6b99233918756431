import { ApiError, GoogleGenAI, Modality, type GenerateContentResponse } from "@google/genai";
import { PROMPT_TABLE } from "../../prompts";
import { EngineError, type Renderer, type RenderRequest, type RenderResult } from "@/core/ports/renderer";
import { ProviderCodes, type ProviderReason } from "../codes";
import {
  createProviderFetch,
  DEFAULT_RETRY,
  ProviderHttpError,
  providerStruggling,
  providerUnavailable,
  type RetryPolicy,
  unreadablePhoto,
} from "../http";
import { readOutputImage } from "../images";
import { promptFor } from "../prompt-for";

/**
 * Google's Nano Banana image models through @google/genai (the Gemini API): the images
 * go inline (base64) with the effect's prompt in one generateContent call, and the image
 * part is read from the answer. When no image comes back, the finish reason (or the
 * prompt's block reason) says why, and the user reads that as a clear failedReason.
 *
 * Model ids are configuration because Google renames and retires preview models.
 */

export const GEMINI_PROVIDER_ID = "gemini";
/** Nano Banana (v1 route) and Nano Banana 2 (v2 route) as of writing. */
export const GEMINI_DEFAULT_MODELS = {
  v1: "gemini-2.5-flash-image",
  v2: "gemini-3.1-flash-image-preview",
} as const;

export interface GeminiProviderOptions {
  /** GEMINI_API_KEY. */
  apiKey: string;
  models: { v1: string; v2: string };
  retry?: RetryPolicy;
  /** The API origin (tests' fake server); unset: Google's. */
  baseUrl?: string;
  log?: (msg: string, extra?: Record<string, unknown>) => void;
}

const TRY_ANOTHER = "Please try a different photo.";

/** Why the model withheld its image, per finish reason. Unlisted reasons read as OTHER. */
export const FINISH_REASONS: Record<string, ProviderReason> = {
  NO_IMAGE: {
    code: ProviderCodes.noImage,
    text: "The image service did not produce an image for this photo. Please try again, or try a different photo.",
  },
  IMAGE_SAFETY: {
    code: ProviderCodes.safetyBlocked,
    text: `The image service's safety filter blocked the generated image. ${TRY_ANOTHER}`,
  },
  IMAGE_PROHIBITED_CONTENT: {
    code: ProviderCodes.prohibited,
    text: `The image service refused to create this image because it may show prohibited content. ${TRY_ANOTHER}`,
  },
  IMAGE_RECITATION: {
    code: ProviderCodes.recitation,
    text: `The image service withheld the result because it was too close to existing protected material. ${TRY_ANOTHER}`,
  },
  IMAGE_OTHER: {
    code: ProviderCodes.noImage,
    text: `The image service could not create an image for this photo. ${TRY_ANOTHER}`,
  },
  SAFETY: {
    code: ProviderCodes.safetyBlocked,
    text: `The image service's safety filter blocked this request. ${TRY_ANOTHER}`,
  },
  PROHIBITED_CONTENT: {
    code: ProviderCodes.prohibited,
    text: `The image service refused this request because it may involve prohibited content. ${TRY_ANOTHER}`,
  },
  BLOCKLIST: {
    code: ProviderCodes.blockedTerms,
    text: `The image service refused this request because it contains blocked terms. Please change your prompt.`,
  },
  SPII: {
    code: ProviderCodes.refused,
    text: `The image service refused this request because it may expose sensitive personal information. ${TRY_ANOTHER}`,
  },
  RECITATION: {
    code: ProviderCodes.recitation,
    text: `The image service withheld the result because it was too close to existing protected material. ${TRY_ANOTHER}`,
  },
  MAX_TOKENS: {
    code: ProviderCodes.noImage,
    text: "The image service stopped before the image was finished. Please try again.",
  },
  OTHER: {
    code: ProviderCodes.noImage,
    text: `The image service could not create an image for this photo. ${TRY_ANOTHER}`,
  },
};

/** Why the input was refused before any generation, per promptFeedback.blockReason. */
export const BLOCK_REASONS: Record<string, ProviderReason> = {
  SAFETY: {
    code: ProviderCodes.safetyBlocked,
    text: `The image service's safety filter blocked this photo. ${TRY_ANOTHER}`,
  },
  IMAGE_SAFETY: {
    code: ProviderCodes.safetyBlocked,
    text: `The image service's safety filter blocked this photo. ${TRY_ANOTHER}`,
  },
  PROHIBITED_CONTENT: {
    code: ProviderCodes.prohibited,
    text: `The image service refused this photo because it may show prohibited content. ${TRY_ANOTHER}`,
  },
  BLOCKLIST: {
    code: ProviderCodes.blockedTerms,
    text: "The image service refused this request because it contains blocked terms. Please change your prompt.",
  },
  MODEL_ARMOR: {
    code: ProviderCodes.refused,
    text: `The image service refused this request. ${TRY_ANOTHER}`,
  },
  OTHER: { code: ProviderCodes.refused, text: `The image service refused this request. ${TRY_ANOTHER}` },
};

export class GeminiProvider implements Renderer {
  readonly id = GEMINI_PROVIDER_ID;
  private readonly ai: GoogleGenAI;

  constructor(private readonly opts: GeminiProviderOptions) {
    this.ai = new GoogleGenAI({
      apiKey: opts.apiKey,
      // Never switch to Vertex AI because of a GOOGLE_GENAI_USE_VERTEXAI left in the environment.
      vertexai: false,
      httpOptions: {
        ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
        // Ours retries 429/5xx with Retry-After; the SDK's retries stay off (no retryOptions).
        fetch: createProviderFetch({
          provider: this.id,
          policy: opts.retry ?? { ...DEFAULT_RETRY, attemptTimeoutMs: 0 },
          onRetry: (info) => opts.log?.("gemini retry", info),
        }),
      },
    });
  }

  supports(effectId: string): boolean {
    return effectId in PROMPT_TABLE;
  }

  modelFor(route: RenderRequest["route"]): string {
    return route === "v2" ? this.opts.models.v2 : this.opts.models.v1;
  }

  async render(request: RenderRequest, signal?: AbortSignal): Promise<RenderResult> {
    const model = this.modelFor(request.route);
    const prompt = await promptFor(request);
    let response: GenerateContentResponse;
    try {
      response = await this.ai.models.generateContent({
        model,
        contents: [
          {
            role: "user",
            parts: [
              ...request.images.map((img) => ({
                inlineData: { mimeType: img.mime, data: Buffer.from(img.bytes).toString("base64") },
              })),
              { text: prompt.text },
            ],
          },
        ],
        config: {
          responseModalities: [Modality.IMAGE],
          candidateCount: 1,
          seed: request.seed,
          ...(prompt.aspectRatio ? { imageConfig: { aspectRatio: prompt.aspectRatio } } : {}),
          ...(signal ? { abortSignal: signal } : {}),
        },
      });
    } catch (err) {
      // generateContent has no server-side cancel: aborting the HTTP call is all there is.
      if (signal?.aborted) throw signal.reason ?? err;
      throw this.failure(err);
    }
    const bytes = imageFrom(response);
    const out = await readOutputImage(bytes);
    return { ...out, provider: this.id, model };
  }

  private failure(err: unknown): EngineError {
    if (err instanceof ApiError) {
      this.opts.log?.("gemini error", { status: err.status, message: err.message });
    } else if (!(err instanceof EngineError)) {
      this.opts.log?.("gemini call failed", { err: String(err) });
    }
    return geminiFailure(err);
  }
}

/** Maps what generateContent threw (an SDK ApiError, or a transport failure) to a reason. */
export function geminiFailure(err: unknown): EngineError {
  if (err instanceof EngineError) return err;
  if (err instanceof ApiError) {
    if (err.status === 400) {
      return unreadablePhoto();
    }
    // Bad key, no access, or a retired model id: the operator's problem. Retryable, so
    // the circuit breaker counts it and routes effects to the fallback.
    if (err.status === 401 || err.status === 403 || err.status === 404) {
      return providerUnavailable();
    }
    if (err.status === 429 || err.status >= 500) {
      return providerStruggling(GEMINI_PROVIDER_ID, err.status);
    }
    return unreadablePhoto();
  }
  return new ProviderHttpError(
    GEMINI_PROVIDER_ID,
    0,
    "The image service could not be reached. Please try again in a few minutes.",
  );
}

const reasonError = (r: ProviderReason, retryable = false): EngineError =>
  new EngineError(r.text, retryable, r.code);

/** The first image part of the answer, or an EngineError saying why there is none. */
export function imageFrom(response: GenerateContentResponse): Uint8Array {
  const block = response.promptFeedback?.blockReason;
  if (block) throw reasonError(BLOCK_REASONS[block] ?? BLOCK_REASONS.OTHER!);
  const candidate = response.candidates?.[0];
  for (const part of candidate?.content?.parts ?? []) {
    const data = part.inlineData?.data;
    if (data && (part.inlineData?.mimeType ?? "image/").startsWith("image/")) {
      return new Uint8Array(Buffer.from(data, "base64"));
    }
  }
  const reason = candidate?.finishReason;
  if (!reason || reason === "STOP" || reason === "FINISH_REASON_UNSPECIFIED") {
    // Finished "normally" with only text: the model answered instead of drawing.
    throw reasonError(FINISH_REASONS.NO_IMAGE!);
  }
  throw reasonError(FINISH_REASONS[reason] ?? FINISH_REASONS.OTHER!, reason === "MAX_TOKENS");
}
