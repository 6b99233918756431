import { ApiError, createFalClient, type FalClient } from "@fal-ai/client";
import { PROMPT_TABLE } from "../../prompts";
import { EngineError, type Renderer, type RenderRequest, type RenderResult } from "@/core/ports/renderer";
import { ProviderCodes } from "../codes";
import {
  createProviderFetch,
  DEFAULT_RETRY,
  ProviderHttpError,
  providerStruggling,
  providerUnavailable,
  type RetryPolicy,
  rewriteHosts,
  sleep,
} from "../http";
import { decodeDataUri, MAX_OUTPUT_BYTES, readCapped, readOutputImage } from "../images";
import { promptFor } from "../prompt-for";
import type { FalWebhookHub } from "./fal-webhook";

/**
 * fal.ai's hosted Nano Banana through @fal-ai/client and fal's queue API: upload the
 * inputs to fal storage, submit, wait (polling with backoff, or a signed webhook), fetch
 * the result image and hand its bytes back. The provider's URL never reaches users: the
 * task runner stores the bytes in our own storage.
 *
 * Inputs are uploaded to fal storage rather than passed as our signed URLs because a
 * provider only gets bytes (the engine interface gives it no URLs), and because a
 * self-hosted server is often not reachable from the internet, where fal's workers would
 * have to fetch them. The uploads expire after `uploadTtlSeconds`.
 */

export const FAL_PROVIDER_ID = "fal";

/** Hosts of fal's APIs that FAL_BASE_URL replaces in tests. */
export const FAL_HOSTS = ["queue.fal.run", "fal.run", "rest.fal.ai", "rest.alpha.fal.ai"] as const;
const QUEUE_ORIGIN = "https://queue.fal.run";

export interface FalProviderOptions {
  /** FAL_KEY. */
  key: string;
  /** Endpoint ids per submit route. */
  models: { v1: string; v2: string };
  retry?: RetryPolicy;
  /** Serve every fal host from this origin instead (tests' fake server). */
  baseUrl?: string;
  /** First and longest wait between two status polls. */
  pollMs?: { initial: number; max: number };
  /** Seconds fal keeps our uploaded inputs and its outputs (privacy: as short as a task). */
  storageTtlSeconds?: number;
  /** Webhook mode: fal POSTs the result to `url`, which the hub hands back to us. */
  webhook?: { url: string; hub: FalWebhookHub };
  log?: (msg: string, extra?: Record<string, unknown>) => void;
}

/** The submit answer: the ids and the URLs the rest of the request's life uses. */
interface Submitted {
  request_id: string;
  status_url: string;
  response_url: string;
  cancel_url: string;
}

/** A fal image in an output payload. */
interface FalImage {
  url?: string;
  content_type?: string;
}

export class FalProvider implements Renderer {
  readonly id = FAL_PROVIDER_ID;
  private readonly client: FalClient;
  private readonly fetch: typeof fetch;
  private readonly queueOrigin: string;
  private readonly pollMs: { initial: number; max: number };
  private readonly storageTtlSeconds: number;

  constructor(private readonly opts: FalProviderOptions) {
    const rewrite = opts.baseUrl ? rewriteHosts(FAL_HOSTS, opts.baseUrl) : undefined;
    this.fetch = createProviderFetch({
      provider: this.id,
      policy: opts.retry ?? DEFAULT_RETRY,
      rewrite,
      onRetry: (info) => opts.log?.("fal retry", info),
    });
    this.queueOrigin = new URL(rewrite ? rewrite(QUEUE_ORIGIN) : QUEUE_ORIGIN).origin;
    this.pollMs = opts.pollMs ?? { initial: 500, max: 5_000 };
    this.storageTtlSeconds = opts.storageTtlSeconds ?? 3600;
    this.client = createFalClient({
      credentials: opts.key,
      fetch: this.fetch,
      // The SDK's own retries would multiply ours; ours honour Retry-After.
      retry: { maxRetries: 0 },
      suppressLocalCredentialsWarning: true,
    });
  }

  supports(effectId: string): boolean {
    return effectId in PROMPT_TABLE;
  }

  /** The endpoint id a route renders with (stored with the image as its model). */
  modelFor(route: RenderRequest["route"]): string {
    return route === "v2" ? this.opts.models.v2 : this.opts.models.v1;
  }

  /**
   * The endpoint of a request: the route's, or for text-to-image (no input photo) the same
   * model's text endpoint (`…/edit` without `/edit`: fal-ai/nano-banana, fal-ai/nano-banana-2).
   */
  endpointFor(request: Pick<RenderRequest, "route" | "images">): string {
    const model = this.modelFor(request.route);
    return request.images.length === 0 ? model.replace(/\/edit$/, "") : model;
  }

  async render(request: RenderRequest, signal?: AbortSignal): Promise<RenderResult> {
    const model = this.endpointFor(request);
    const prompt = await promptFor(request);
    const lifecycle = { expiresIn: this.storageTtlSeconds };

    const submitted = await this.call(async () => {
      const imageUrls = await Promise.all(
        request.images.map((img) =>
          this.client.storage.upload(new Blob([new Uint8Array(img.bytes)], { type: img.mime }), {
            lifecycle,
          }),
        ),
      );
      signal?.throwIfAborted();
      return (await this.client.queue.submit(model, {
        input: {
          prompt: prompt.text,
          ...(imageUrls.length ? { image_urls: imageUrls } : {}),
          num_images: 1,
          output_format: "png",
          seed: request.seed,
          aspect_ratio: prompt.aspectRatio ?? "auto",
        },
        storageSettings: lifecycle,
        abortSignal: signal,
        ...(this.opts.webhook ? { webhookUrl: this.opts.webhook.url } : {}),
      })) as unknown as Submitted;
    }, signal);
    this.checkQueueUrls(submitted);

    let payload: { images?: FalImage[] };
    try {
      payload = await this.waitForResult(submitted, signal);
    } catch (err) {
      // Our window closed (or the task was cancelled): tell fal to stop, so a job nobody
      // will read does not run on. Best effort, not bound to the aborted signal.
      if (signal?.aborted) await this.cancel(submitted);
      throw err;
    }
    const image = payload.images?.[0];
    if (!image?.url)
      throw new EngineError(
        "The image service did not return an image. Please try again.",
        false,
        ProviderCodes.noImage,
      );
    const bytes = await this.download(image.url, signal);
    const out = await readOutputImage(bytes);
    return { ...out, provider: this.id, model };
  }

  /** Waits for the job: the webhook if configured (with slow polling as a safety net), else polling. */
  private async waitForResult(job: Submitted, signal?: AbortSignal): Promise<{ images?: FalImage[] }> {
    const hub = this.opts.webhook?.hub;
    if (!hub) return this.poll(job, signal, this.pollMs);
    const local = new AbortController();
    const both = signal ? AbortSignal.any([signal, local.signal]) : local.signal;
    try {
      return await Promise.race([
        hub.wait(job.request_id, both).then((delivery) => this.fromWebhook(delivery)),
        // A lost webhook must not hang the task: poll too, but rarely.
        this.poll(job, both, { initial: Math.max(this.pollMs.max, 10_000), max: 30_000 }),
      ]);
    } finally {
      local.abort();
    }
  }

  private fromWebhook(delivery: { status: string; payload: unknown; error?: string }): {
    images?: FalImage[];
  } {
    if (delivery.status === "OK" && delivery.payload && typeof delivery.payload === "object") {
      return delivery.payload as { images?: FalImage[] };
    }
    // fal reports a failed job as status ERROR with "Invalid status code: NNN".
    const status = Number(/(\d{3})/.exec(delivery.error ?? "")?.[1] ?? 422);
    throw falFailure(status, delivery.payload, delivery.error);
  }

  /** Polls status_url with growing waits until COMPLETED, then reads response_url. */
  private async poll(
    job: Submitted,
    signal: AbortSignal | undefined,
    waits: { initial: number; max: number },
  ): Promise<{ images?: FalImage[] }> {
    let wait = waits.initial;
    for (;;) {
      const status = await this.getJson<{ status?: string; error?: string | null }>(
        `${job.status_url}${job.status_url.includes("?") ? "&" : "?"}logs=0`,
        signal,
      );
      if (status.body.status === "COMPLETED") break;
      await sleep(wait, signal);
      wait = Math.min(waits.max, Math.round(wait * 1.5));
    }
    const result = await this.getJson<{ images?: FalImage[] }>(job.response_url, signal);
    return result.body;
  }

  /** GET with our key; fal's non-retryable errors become user-facing EngineErrors. */
  private async getJson<T>(url: string, signal?: AbortSignal): Promise<{ body: T }> {
    const res = await this.call(
      () =>
        this.fetch(url, {
          headers: { authorization: `Key ${this.opts.key}`, accept: "application/json" },
          signal,
        }),
      signal,
    );
    const body = (await res.json().catch(() => null)) as unknown;
    if (!res.ok) throw falFailure(res.status, body);
    return { body: body as T };
  }

  /** PUT cancel_url: fal stops a queued or running job. Never throws. */
  private async cancel(job: Submitted): Promise<void> {
    try {
      const res = await this.fetch(job.cancel_url, {
        method: "PUT",
        headers: { authorization: `Key ${this.opts.key}` },
        signal: AbortSignal.timeout(5_000),
      });
      await res.body?.cancel().catch(() => undefined);
    } catch (err) {
      this.opts.log?.("fal cancel failed", { requestId: job.request_id, err: String(err) });
    }
  }

  /** Fetches the output image, without our key (it lives on fal's CDN), capped in size. */
  private async download(url: string, signal?: AbortSignal): Promise<Uint8Array> {
    const inline = decodeDataUri(url);
    if (inline) return inline;
    const parsed = new URL(url);
    // Only fetch what a provider would really return; a plain-http or odd URL in a result
    // is refused rather than fetched from inside our network.
    const isFake = this.opts.baseUrl !== undefined && parsed.origin === new URL(this.opts.baseUrl).origin;
    if (parsed.protocol !== "https:" && !isFake) {
      throw new EngineError(
        "The image service returned an unusable image address.",
        true,
        ProviderCodes.badOutput,
      );
    }
    const res = await this.call(() => this.fetch(url, { signal }), signal);
    if (!res.ok)
      throw new EngineError(
        "The image service's result could not be downloaded. Please try again.",
        true,
        ProviderCodes.badOutput,
      );
    return readCapped(res, MAX_OUTPUT_BYTES);
  }

  /** The status/result/cancel URLs come from fal's answer; our key only goes to fal's queue. */
  private checkQueueUrls(job: Submitted): void {
    for (const u of [job.status_url, job.response_url, job.cancel_url]) {
      if (typeof u !== "string" || new URL(u).origin !== this.queueOrigin) {
        throw new EngineError(
          "The image service answered unexpectedly. Please try again.",
          true,
          ProviderCodes.unexpected,
        );
      }
    }
  }

  /** Runs one SDK or HTTP step, turning its errors into EngineErrors. */
  private async call<T>(step: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await step();
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      if (err instanceof EngineError) throw err;
      if (err instanceof ApiError) throw falFailure(err.status, err.body);
      this.opts.log?.("fal call failed", { err: String(err) });
      throw new ProviderHttpError(
        this.id,
        0,
        "The image service could not be reached. Please try again in a few minutes.",
      );
    }
  }
}

/** Maps fal's error answers (model errors with a typed `detail` array, request errors with error_type) to reasons. */
export function falFailure(status: number, body: unknown, error?: string): EngineError {
  const types = errorTypes(body);
  if (types.some((t) => t.includes("content_policy") || t.includes("safety") || t.includes("nsfw"))) {
    return new EngineError(
      "The image service's safety filter blocked this request. Please try a different photo.",
      false,
      ProviderCodes.safetyBlocked,
    );
  }
  if (
    types.some(
      (t) => t.includes("image_too_large") || t.includes("image_too_small") || t.includes("image_load"),
    )
  ) {
    return new EngineError(
      "The image service could not read this photo. Please try a different one.",
      false,
      ProviderCodes.unreadablePhoto,
    );
  }
  if (status === 401 || status === 403) {
    // Our key is wrong or out of credit: the operator's problem, so count it against
    // fal (retryable) and let the circuit breaker route to the fallback.
    return providerUnavailable();
  }
  if (status === 429 || status >= 500 || (error ?? "").toLowerCase().includes("timeout")) {
    return providerStruggling(FAL_PROVIDER_ID, status);
  }
  return new EngineError(
    "The image service could not process this photo. Please try a different one.",
    false,
    ProviderCodes.unreadablePhoto,
  );
}

function errorTypes(body: unknown): string[] {
  if (!body || typeof body !== "object") return [];
  const b = body as { detail?: unknown; error_type?: unknown };
  const out: string[] = [];
  if (typeof b.error_type === "string") out.push(b.error_type);
  if (Array.isArray(b.detail)) {
    for (const d of b.detail) {
      if (d && typeof d === "object" && typeof (d as { type?: unknown }).type === "string") {
        out.push((d as { type: string }).type);
      }
    }
  }
  return out.map((t) => t.toLowerCase());
}
