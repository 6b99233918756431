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
  sleep,
  unreadablePhoto,
} from "../http";
import { decodeDataUri, MAX_OUTPUT_BYTES, readCapped, readOutputImage } from "../images";
import { promptFor } from "../prompt-for";
import { isTerminal, ReplicateWebhookHub, type ReplicatePrediction } from "./replicate-webhook";

/**
 * Replicate's HTTP API: create a prediction for an instruction-editing model with the
 * inputs as data URIs (a self-hosted server has no public URL Replicate could fetch),
 * wait for it (the create call holds for up to `Prefer: wait=N` seconds, then polling with
 * backoff, or a signed webhook), and download the output at once: Replicate deletes output
 * files after an hour. The provider's URL never reaches users; the task runner stores the
 * bytes. A render that is aborted (task deadline, cancellation) cancels its prediction so
 * nobody pays for a job nobody will read.
 *
 * The default model is Qwen-Image-Edit-2509 (`qwen/qwen-image-edit-plus`): Apache-2.0
 * weights, instruction edits of one to three images (the two-photo effects need that).
 * Its input schema (`image` array, `prompt`, `aspect_ratio`, `output_format`, `seed`) is
 * what is sent; another model with the same field names can be configured instead.
 *
 * A request without images (the generic generate call's text-to-image) goes to the text
 * model, Qwen-Image by default (`qwen/qwen-image`, Apache-2.0 weights): `prompt`,
 * `aspect_ratio` (its own list), `output_format`, `seed`.
 */

export const REPLICATE_PROVIDER_ID = "replicate";
export const REPLICATE_DEFAULT_MODEL = "qwen/qwen-image-edit-plus";
export const REPLICATE_DEFAULT_BASE_URL = "https://api.replicate.com";

export const REPLICATE_DEFAULT_TEXT_MODEL = "qwen/qwen-image";

/** Aspect ratios the Qwen edit models accept besides "match_input_image". */
export const QWEN_ASPECT_RATIOS = ["1:1", "16:9", "9:16", "4:3", "3:4"] as const;
/** Aspect ratios Qwen-Image (text-to-image) accepts. */
export const QWEN_TEXT_ASPECT_RATIOS = ["1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3"] as const;

/** Models whose `image` input is one URI rather than an array (the first Qwen-Image-Edit). */
const SINGLE_IMAGE_MODELS = new Set(["qwen/qwen-image-edit"]);

export interface ReplicateProviderOptions {
  /** REPLICATE_API_TOKEN. */
  token: string;
  /** The API origin (tests' fake server); default Replicate's. */
  baseUrl?: string;
  /** `owner/name` (an official model) or `owner/name:<64-hex version>`; default qwen/qwen-image-edit-plus. */
  model?: string;
  /** The text-to-image model (requests without images), same form; default qwen/qwen-image. */
  textModel?: string;
  /**
   * Webhook mode: Replicate POSTs the finished prediction to `url`, signed with `secret`
   * (`whsec_…`). The hub the API route feeds is `provider.webhooks` (or pass your own).
   */
  webhook?: { url: string; secret: string; hub?: ReplicateWebhookHub };
  /** First wait between two status polls (grows by 1.5x up to `max`, default 5 s). */
  pollMs?: number | { initial: number; max: number };
  /** Polling while a webhook is expected (a safety net for lost deliveries); default 10-30 s. */
  webhookPollMs?: { initial: number; max: number };
  /** `Prefer: wait=N`: how long the create call may hold for the result (1-60 s, default 30). */
  syncWaitSeconds?: number;
  retry?: RetryPolicy;
  log?: (msg: string, extra?: Record<string, unknown>) => void;
}

interface ModelRef {
  owner: string;
  name: string;
  version?: string;
}

const TRY_ANOTHER = "Please try a different photo.";

export class ReplicateProvider implements Renderer {
  readonly id = REPLICATE_PROVIDER_ID;
  readonly model: string;
  readonly textModel: string;
  /** Set in webhook mode: the API route hands verified deliveries to it. */
  readonly webhooks: ReplicateWebhookHub | null;
  private readonly ref: ModelRef;
  private readonly textRef: ModelRef;
  private readonly origin: string;
  private readonly fetch: typeof fetch;
  private readonly createFetch: typeof fetch;
  private readonly pollMs: { initial: number; max: number };
  private readonly webhookPollMs: { initial: number; max: number };
  private readonly syncWaitSeconds: number;
  private readonly createDeadlineMs: number;

  constructor(private readonly opts: ReplicateProviderOptions) {
    this.model = opts.model ?? REPLICATE_DEFAULT_MODEL;
    this.ref = parseModel(this.model);
    this.textModel = opts.textModel ?? REPLICATE_DEFAULT_TEXT_MODEL;
    this.textRef = parseModel(this.textModel);
    this.origin = new URL(opts.baseUrl ?? REPLICATE_DEFAULT_BASE_URL).origin;
    const policy = opts.retry ?? DEFAULT_RETRY;
    const onRetry = (info: Record<string, unknown>) => opts.log?.("replicate retry", info);
    this.fetch = createProviderFetch({ provider: this.id, policy, onRetry });
    this.syncWaitSeconds = Math.min(60, Math.max(1, Math.round(opts.syncWaitSeconds ?? 30)));
    // The create call holds for up to syncWaitSeconds: its attempts must be allowed longer.
    const createTimeout = policy.attemptTimeoutMs
      ? Math.max(policy.attemptTimeoutMs, (this.syncWaitSeconds + 15) * 1000)
      : 0;
    this.createDeadlineMs =
      Math.max(1, policy.attempts) * ((this.syncWaitSeconds + 15) * 1000 + policy.maxDelayMs);
    this.createFetch = createProviderFetch({
      provider: this.id,
      policy: { ...policy, attemptTimeoutMs: createTimeout },
      onRetry,
    });
    const poll = typeof opts.pollMs === "number" ? { initial: opts.pollMs, max: 5_000 } : opts.pollMs;
    this.pollMs = {
      initial: poll?.initial ?? 500,
      max: Math.max(poll?.initial ?? 500, poll?.max ?? 5_000),
    };
    this.webhookPollMs = opts.webhookPollMs ?? { initial: Math.max(this.pollMs.max, 10_000), max: 30_000 };
    this.webhooks = opts.webhook
      ? (opts.webhook.hub ?? new ReplicateWebhookHub({ secret: opts.webhook.secret }))
      : null;
  }

  supports(effectId: string): boolean {
    // Every effect and both free-form ids (text-to-image on the text model).
    return effectId in PROMPT_TABLE;
  }

  async render(request: RenderRequest, signal?: AbortSignal): Promise<RenderResult> {
    signal?.throwIfAborted();
    const prompt = await promptFor(request);
    const fromText = request.images.length === 0;
    const input = fromText
      ? textInput(prompt.text, request.seed, prompt.aspectRatio)
      : this.inputFor(request, prompt.text, prompt.aspectRatio);

    // The create call is not bound to the caller's signal: aborted mid-way (it can hold for
    // syncWaitSeconds), the prediction would exist without us knowing its id. It runs to
    // its end instead, and whatever it created is cancelled.
    const creating = this.create(fromText ? this.textRef : this.ref, input);
    let prediction: ReplicatePrediction;
    try {
      prediction = await raceAbort(creating, signal);
    } catch (err) {
      if (signal?.aborted) {
        void creating.then(
          (p) => (isTerminal(p.status) ? undefined : this.cancel(p.id)),
          () => undefined,
        );
      }
      throw err;
    }

    let done: ReplicatePrediction;
    try {
      done = isTerminal(prediction.status) ? prediction : await this.waitFor(prediction.id, signal);
    } catch (err) {
      // Our window closed (or the task was cancelled): tell Replicate to stop. Best
      // effort, not bound to the aborted signal.
      if (signal?.aborted) await this.cancel(prediction.id);
      throw err;
    }
    const url = outputUrl(this.finished(done));
    const bytes = await this.download(url, signal);
    const out = await readOutputImage(bytes);
    return { ...out, provider: this.id, model: fromText ? this.textModel : this.model };
  }

  /** The model input: the Qwen edit schema. */
  private inputFor(request: RenderRequest, text: string, aspectRatio?: AspectRatio): Record<string, unknown> {
    const images = request.images.map(
      (img) => `data:${img.mime};base64,${Buffer.from(img.bytes).toString("base64")}`,
    );
    const single = SINGLE_IMAGE_MODELS.has(`${this.ref.owner}/${this.ref.name}`);
    return {
      prompt: text,
      image: single ? images[0] : images,
      aspect_ratio: aspectRatio ? nearestQwenRatio(aspectRatio) : "match_input_image",
      output_format: "png",
      seed: request.seed,
    };
  }

  /** POST the prediction (official-model route, or /v1/predictions with a version). */
  private async create(ref: ModelRef, input: Record<string, unknown>): Promise<ReplicatePrediction> {
    const { owner, name, version } = ref;
    const url = version
      ? `${this.origin}/v1/predictions`
      : `${this.origin}/v1/models/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/predictions`;
    const body: Record<string, unknown> = { ...(version ? { version } : {}), input };
    if (this.opts.webhook) {
      body.webhook = this.opts.webhook.url;
      body.webhook_events_filter = ["completed"];
    }
    const res = await this.call(() =>
      this.createFetch(url, {
        method: "POST",
        headers: {
          ...this.headers(),
          "content-type": "application/json",
          prefer: `wait=${this.syncWaitSeconds}`,
        },
        body: JSON.stringify(body),
        // Not the caller's signal (see render), but bounded: every attempt's hold and waits.
        signal: AbortSignal.timeout(this.createDeadlineMs),
      }),
    );
    return this.predictionFrom(res);
  }

  /** Waits for the prediction: the webhook if configured (slow polling as a safety net), else polling. */
  private async waitFor(id: string, signal?: AbortSignal): Promise<ReplicatePrediction> {
    const hub = this.webhooks;
    if (!hub) return this.poll(id, signal, this.pollMs);
    const local = new AbortController();
    const both = signal ? AbortSignal.any([signal, local.signal]) : local.signal;
    try {
      return await Promise.race([hub.wait(id, both), this.poll(id, both, this.webhookPollMs)]);
    } finally {
      local.abort();
    }
  }

  /** Polls GET /v1/predictions/{id} with growing waits until a terminal status. */
  private async poll(
    id: string,
    signal: AbortSignal | undefined,
    waits: { initial: number; max: number },
  ): Promise<ReplicatePrediction> {
    let wait = waits.initial;
    for (;;) {
      await sleep(wait, signal);
      wait = Math.min(waits.max, Math.round(wait * 1.5));
      const res = await this.call(
        () =>
          this.fetch(`${this.origin}/v1/predictions/${encodeURIComponent(id)}`, {
            headers: this.headers(),
            signal,
          }),
        signal,
      );
      const p = await this.predictionFrom(res, signal);
      if (isTerminal(p.status)) return p;
    }
  }

  /** POST /v1/predictions/{id}/cancel. Never throws. */
  private async cancel(id: string): Promise<void> {
    try {
      const res = await this.fetch(`${this.origin}/v1/predictions/${encodeURIComponent(id)}/cancel`, {
        method: "POST",
        headers: this.headers(),
        signal: AbortSignal.timeout(5_000),
      });
      await res.body?.cancel().catch(() => undefined);
    } catch (err) {
      this.opts.log?.("replicate cancel failed", { predictionId: id, err: String(err) });
    }
  }

  /** A terminal prediction's success, or the EngineError its failure means. */
  private finished(p: ReplicatePrediction): ReplicatePrediction {
    if (p.status === "succeeded") return p;
    if (p.status === "failed") {
      this.opts.log?.("replicate prediction failed", { predictionId: p.id, error: String(p.error ?? "") });
      throw predictionFailure(p.error);
    }
    // Canceled or aborted, but not by us (our own cancel only follows an abort).
    throw new EngineError(
      "The image service stopped this render before it finished. Please try again.",
      true,
      ProviderCodes.unexpected,
    );
  }

  /** Reads a prediction from an answer; Replicate's error answers become EngineErrors. */
  private async predictionFrom(res: Response, signal?: AbortSignal): Promise<ReplicatePrediction> {
    let body: unknown;
    try {
      body = await res.json();
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      body = null;
    }
    if (!res.ok) {
      const failure = replicateHttpFailure(res.status, body);
      this.opts.log?.("replicate error", { status: res.status, body: problemSummary(body) });
      throw failure;
    }
    const p = body as Partial<ReplicatePrediction> | null;
    if (
      !p ||
      typeof p.id !== "string" ||
      !/^[A-Za-z0-9_-]{1,100}$/.test(p.id) ||
      typeof p.status !== "string"
    ) {
      throw unexpected();
    }
    return p as ReplicatePrediction;
  }

  /**
   * Fetches the output image without our token (it lives on Replicate's file host),
   * capped in size. Only https addresses (or the configured origin, a local fake in tests)
   * are fetched, redirects included: a provider answer cannot point us inside our network.
   */
  private async download(url: string, signal?: AbortSignal): Promise<Uint8Array> {
    const inline = decodeDataUri(url);
    if (inline) {
      if (inline.byteLength > MAX_OUTPUT_BYTES) throw tooLarge();
      return inline;
    }
    let target = url;
    for (let hop = 0; hop < 4; hop++) {
      this.checkOutputUrl(target);
      const res = await this.call(() => this.fetch(target, { signal, redirect: "manual" }), signal);
      const location = res.headers.get("location");
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel().catch(() => undefined);
        target = new URL(location, target).toString();
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        throw new EngineError(
          "The image service's result could not be downloaded. Please try again.",
          true,
          ProviderCodes.badOutput,
        );
      }
      return readCapped(res, MAX_OUTPUT_BYTES);
    }
    throw badAddress();
  }

  private checkOutputUrl(raw: string): void {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw badAddress();
    }
    const isFake = this.opts.baseUrl !== undefined && parsed.origin === this.origin;
    if (parsed.protocol !== "https:" && !isFake) throw badAddress();
  }

  private headers(): Record<string, string> {
    return { authorization: `Bearer ${this.opts.token}`, accept: "application/json" };
  }

  /** Runs one HTTP step, turning transport errors into ProviderHttpError. */
  private async call<T>(step: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await step();
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      if (err instanceof EngineError) throw err;
      this.opts.log?.("replicate call failed", { err: String(err) });
      throw new ProviderHttpError(
        this.id,
        0,
        "The image service could not be reached. Please try again in a few minutes.",
      );
    }
  }
}

/** createReplicateProvider({token, baseUrl, model, webhook, pollMs, retry, log}): the Replicate renderer. */
export function createReplicateProvider(opts: ReplicateProviderOptions): ReplicateProvider {
  return new ReplicateProvider(opts);
}

/** `owner/name` or `owner/name:version`; throws on anything else (a configuration error). */
export function parseModel(model: string): ModelRef {
  const m = /^([A-Za-z0-9][\w.-]*)\/([A-Za-z0-9][\w.-]*)(?::([0-9a-f]{64}))?$/.exec(model.trim());
  if (!m) throw new Error(`Invalid Replicate model "${model}": expected owner/name or owner/name:version`);
  return { owner: m[1]!, name: m[2]!, ...(m[3] ? { version: m[3] } : {}) };
}

/** The Qwen ratio closest to an effect's ratio (log scale: 4:5 goes 3:4, 21:9 goes 16:9). */
export function nearestQwenRatio(aspectRatio: AspectRatio): (typeof QWEN_ASPECT_RATIOS)[number] {
  return nearestRatio(aspectRatio, QWEN_ASPECT_RATIOS);
}

/** The ratio among `choices` (which hold "1:1") closest to `aspectRatio`, on a log scale. */
function nearestRatio<R extends string>(aspectRatio: AspectRatio, choices: readonly R[]): R {
  const value = (r: string) => {
    const [a, b] = r.split(":").map(Number) as [number, number];
    return Math.log(a / b);
  };
  const target = value(aspectRatio);
  let best = choices.find((r) => r === "1:1") ?? choices[0]!;
  for (const r of choices) {
    if (Math.abs(value(r) - target) < Math.abs(value(best) - target) - 1e-9) best = r;
  }
  return best;
}

/** The text model's input (Qwen-Image's schema): no image; square when no shape is asked. */
export function textInput(prompt: string, seed: number, aspectRatio?: AspectRatio): Record<string, unknown> {
  return {
    prompt,
    aspect_ratio: aspectRatio ? nearestRatio(aspectRatio, QWEN_TEXT_ASPECT_RATIOS) : "1:1",
    output_format: "png",
    seed,
  };
}

/** The first output URL: models answer a URI or an array of URIs. */
export function outputUrl(p: ReplicatePrediction): string {
  const out = Array.isArray(p.output) ? p.output[0] : p.output;
  if (typeof out === "string" && out.length > 0) return out;
  throw new EngineError(
    "The image service did not return an image. Please try again.",
    false,
    ProviderCodes.noImage,
  );
}

/** Words a model's safety checker uses in a failed prediction's `error`. */
const SAFETY_PATTERN = /nsfw|safety|unsafe|sensitive|content (policy|moderation|filter)|flagged|\bE005\b/i;

/** Maps a failed prediction's `error` string to a reason. */
export function predictionFailure(error: unknown): EngineError {
  const text = typeof error === "string" ? error : error ? JSON.stringify(error) : "";
  if (SAFETY_PATTERN.test(text)) {
    return new EngineError(
      `The image service's safety filter blocked this request. ${TRY_ANOTHER}`,
      false,
      ProviderCodes.safetyBlocked,
    );
  }
  if (/cannot identify image|invalid image|decod|unsupported image|image.*(too (large|small))/i.test(text)) {
    return new EngineError(
      `The image service could not read this photo. ${TRY_ANOTHER}`,
      false,
      ProviderCodes.unreadablePhoto,
    );
  }
  // A model crash (out of memory, a worker lost): another attempt may well succeed.
  return new EngineError(
    "The image service failed to create an image. Please try again.",
    true,
    ProviderCodes.noImage,
  );
}

/**
 * Maps Replicate's HTTP error answers (problem JSON: title, detail, status) to reasons.
 * 401/403 (token) and 404 (model gone) are the operator's problem: retryable, so the
 * circuit breaker routes to the fallback. 422 is an input the model refused.
 */
export function replicateHttpFailure(status: number, body: unknown): EngineError {
  const detail = problemText(body);
  if (SAFETY_PATTERN.test(detail)) return predictionFailure(detail);
  if (status === 401 || status === 403 || status === 404 || status === 402) {
    return providerUnavailable();
  }
  if (status === 429 || status >= 500) {
    return providerStruggling(REPLICATE_PROVIDER_ID, status);
  }
  if (status === 400 || status === 413 || status === 422) {
    return unreadablePhoto();
  }
  return unexpected();
}

function problemText(body: unknown): string {
  if (!body || typeof body !== "object") return "";
  const b = body as { title?: unknown; detail?: unknown };
  return [b.title, b.detail].filter((v): v is string => typeof v === "string").join(" ");
}

function problemSummary(body: unknown): Record<string, unknown> | null {
  if (!body || typeof body !== "object") return null;
  const b = body as { title?: unknown; detail?: unknown; status?: unknown };
  return { title: b.title, detail: typeof b.detail === "string" ? b.detail.slice(0, 300) : b.detail };
}

const unexpected = () =>
  new EngineError(
    "The image service answered unexpectedly. Please try again.",
    true,
    ProviderCodes.unexpected,
  );
const badAddress = () =>
  new EngineError("The image service returned an unusable image address.", true, ProviderCodes.badOutput);
const tooLarge = () =>
  new EngineError("The image service returned an image that is too large.", true, ProviderCodes.badOutput);

/** Resolves or rejects with `p`, or rejects with the signal's reason as soon as it aborts. */
function raceAbort<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
