import { randomBytes, randomUUID } from "node:crypto";
import { PROMPT_TABLE } from "../../prompts";
import { EngineError, type Renderer, type RenderRequest, type RenderResult } from "@/core/ports/renderer";
import { ProviderCodes, type ProviderCode } from "../codes";
import {
  createProviderFetch,
  DEFAULT_RETRY,
  ProviderHttpError,
  sleep,
  unavailableReason,
  type RetryPolicy,
} from "../http";
import { inputSize, MAX_OUTPUT_BYTES, readCapped, readOutputImage } from "../images";
import { promptFor } from "../prompt-for";
import { openSocket, type ComfySocket, type SocketMessage } from "./socket";
import {
  fillWorkflow,
  hasOperatorWorkflow,
  loadWorkflow,
  MAX_BUILTIN_IMAGES,
  outputSize,
  WorkflowError,
  type ApiWorkflow,
} from "./workflow";

/**
 * A self-hosted ComfyUI fleet (one or more GPU servers) as an image provider. Per render:
 * pick the reachable server with the shortest queue, upload the inputs under random names
 * in a random per-task subfolder, fill the effect's API-format workflow, open the progress
 * socket, queue the prompt, follow it (socket messages; /history polling when the socket is
 * missing or drops), and download the saved image through /view. On the deadline the job is
 * interrupted if it is running, or deleted from the queue if it is still waiting.
 *
 * Protocol checked against ComfyUI's server.py and execution.py (see stock-nodes.ts for the
 * commit). ComfyUI has no authentication of its own: `token` is sent as a bearer token for
 * a reverse proxy in front of it.
 */

export const COMFYUI_PROVIDER_ID = "comfyui";
/** Model name stored with images from the built-in edit workflows. */
export const COMFYUI_DEFAULT_MODEL = "qwen-image-edit-2509-lightning";
/** Model name stored with images from the built-in text-to-image workflow. */
export const COMFYUI_TEXT_MODEL = "qwen-image-lightning";

export interface ComfyUIProgress {
  /** Steps done and steps in all of the node now running (KSampler: sampling steps). */
  value: number;
  max: number;
  /** Jobs ahead of ours on its server (0 once ours runs); only while known. */
  queuePosition?: number;
}

export interface ComfyUIProgressContext {
  request: RenderRequest;
  promptId: string;
  server: string;
}

export interface ComfyUIOptions {
  /** Base URLs of the ComfyUI servers (e.g. http://gpu1:8188). */
  urls: string[];
  /** Sent as `Authorization: Bearer …` on every call (a reverse proxy's check). */
  token?: string;
  /** The operator's workflows: `<effect-id>.json` there replaces the built-in workflow. */
  workflowsDir?: string;
  retry?: RetryPolicy;
  /** Wait between /history polls once the socket is gone (default 1000 ms). */
  pollMs?: number;
  /** Wait between /history polls while the socket is open, a safety net (default 15 s). */
  safetyPollMs?: number;
  /** How long a server that could not be reached is skipped (default 30 s). */
  downMs?: number;
  /** Time limit of one /queue probe and of opening the socket (default 5 s). */
  probeTimeoutMs?: number;
  /** false: never open the socket, follow jobs by polling /history only. */
  webSocket?: boolean;
  /** Output size in megapixels (default 1). */
  megapixels?: number;
  /** Model name stored with images from the built-in edit workflows. */
  model?: string;
  /** Model name stored with images from the built-in text-to-image workflow. */
  textModel?: string;
  log?: (msg: string, extra?: Record<string, unknown>) => void;
  /** Progress of a render: queue position while waiting, then steps done. */
  onProgress?: (progress: ComfyUIProgress, ctx: ComfyUIProgressContext) => void;
}

export function createComfyUIProvider(opts: ComfyUIOptions): Renderer {
  return new ComfyUIProvider(opts);
}

/** One server of the fleet and what we remember about it. */
interface Server {
  url: string;
  /** Skipped until then (ms epoch) after it could not be reached. */
  downUntil: number;
  /** Jobs we chose it for that it does not list yet (between choice and queued). */
  reserved: number;
}

/** An item of /queue's lists: [number, prompt_id, prompt, extra_data, outputs_to_execute]. */
type QueueItem = [number, string, ...unknown[]];
interface QueueInfo {
  queue_running: QueueItem[];
  queue_pending: QueueItem[];
}

/** An image reference in /history outputs and `executed` messages. */
interface OutputRef {
  filename: string;
  subfolder?: string;
  type?: string;
}
interface HistoryEntry {
  status?: {
    status_str?: string;
    completed?: boolean;
    messages?: Array<[string, Record<string, unknown>]>;
  } | null;
  outputs?: Record<string, { images?: OutputRef[] }>;
}

/** A queued job and how we follow it. */
interface Job {
  server: Server;
  base: string;
  promptId: string;
  number: number;
  clientId: string;
  workflow: ApiWorkflow;
  socket?: ComfySocket;
  inbox: Inbox<JobEvent>;
}
type JobEvent = { kind: "message"; message: SocketMessage } | { kind: "closed" };

const REASONS = {
  noImage: "The image service did not return an image. Please try again.",
  unexpected: "The image service answered unexpectedly. Please try again.",
  interrupted: "The render was stopped on the image server. Please try again.",
  unavailable: "The image service is not available on this server right now.",
} as const;

/** A ComfyUI failure; `detail` is for logs (node errors, traceback summary). */
export class ComfyUIError extends EngineError {
  constructor(
    reason: string,
    retryable: boolean,
    code: ProviderCode,
    readonly detail?: string,
  ) {
    super(reason, retryable, code);
    this.name = "ComfyUIError";
  }
}

class ComfyUIProvider implements Renderer {
  readonly id = COMFYUI_PROVIDER_ID;
  private readonly servers: Server[];
  private readonly http: typeof fetch;
  private readonly probe: typeof fetch;
  private readonly pollMs: number;
  private readonly safetyPollMs: number;
  private readonly downMs: number;
  private readonly probeTimeoutMs: number;

  constructor(private readonly opts: ComfyUIOptions) {
    if (!opts.urls.length) throw new Error("ComfyUI provider: no server URLs");
    this.servers = opts.urls.map((url) => ({ url: baseUrl(url), downUntil: 0, reserved: 0 }));
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 5_000;
    this.http = createProviderFetch({
      provider: this.id,
      policy: opts.retry ?? DEFAULT_RETRY,
      onRetry: (info) => opts.log?.("comfyui retry", info),
    });
    // A probe is one quick attempt: a server that does not answer is skipped, not waited for.
    this.probe = createProviderFetch({
      provider: this.id,
      policy: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0, attemptTimeoutMs: this.probeTimeoutMs },
    });
    this.pollMs = opts.pollMs ?? 1_000;
    this.safetyPollMs = opts.safetyPollMs ?? 15_000;
    this.downMs = opts.downMs ?? 30_000;
  }

  supports(effectId: string): boolean {
    // Every effect and both free-form ids (text-to-image has its own built-in workflow).
    return Object.hasOwn(PROMPT_TABLE, effectId);
  }

  maxImages(effectId: string): number | undefined {
    // An operator's workflow for the effect takes what its placeholders name (checked when it
    // is loaded); ours take at most three photos.
    return hasOperatorWorkflow(effectId, this.opts.workflowsDir) ? undefined : MAX_BUILTIN_IMAGES;
  }

  async render(
    request: RenderRequest,
    signal?: AbortSignal,
    onProgress?: (progress: ComfyUIProgress) => void,
  ): Promise<RenderResult> {
    const prompt = await promptFor(request);
    const loaded = await loadWorkflow(request.effectId, request.images.length, this.opts.workflowsDir).catch(
      (err: unknown) => {
        if (err instanceof WorkflowError) {
          this.opts.log?.("comfyui workflow unusable", { effectId: request.effectId, detail: err.detail });
        }
        throw err;
      },
    );
    const size = outputSize(
      prompt.aspectRatio,
      request.images[0] ? await inputSize(request.images[0].bytes) : undefined,
      this.opts.megapixels,
    );
    signal?.throwIfAborted();
    const model =
      loaded.source === "operator"
        ? `comfyui-workflow:${request.effectId}`
        : request.images.length === 0
          ? (this.opts.textModel ?? COMFYUI_TEXT_MODEL)
          : (this.opts.model ?? COMFYUI_DEFAULT_MODEL);

    const job = await this.submit(request, signal, (images, outputPrefix) =>
      fillWorkflow(loaded.workflow, {
        images,
        prompt: prompt.text,
        seed: request.seed,
        width: size.width,
        height: size.height,
        outputPrefix,
      }),
    );
    try {
      const entry = await this.follow(job, request, signal, onProgress);
      const ref = pickOutput(entry);
      if (!ref)
        throw new ComfyUIError(REASONS.noImage, false, ProviderCodes.noImage, "no saved image in outputs");
      const bytes = await this.download(job, ref, signal);
      const out = await readOutputImage(bytes);
      return { ...out, provider: this.id, model };
    } catch (err) {
      // Our window closed or the task was cancelled: stop the job so a GPU does not work
      // on for nobody. Best effort, with its own time limit (the signal is spent).
      if (signal?.aborted) await this.cancel(job.base, job.promptId);
      throw err;
    } finally {
      job.socket?.close();
    }
  }

  // ---- choosing a server -------------------------------------------------------------

  /**
   * Reachable servers, shortest queue first (ours not yet listed count too). Servers
   * marked down are skipped while others answer; if none does, they are tried again.
   */
  private async rankServers(signal?: AbortSignal): Promise<Server[]> {
    const now = Date.now();
    const up = this.servers.filter((s) => s.downUntil <= now);
    let ranked = await this.probeAll(up, signal);
    if (!ranked.usable.length) {
      const down = this.servers.filter((s) => s.downUntil > now);
      if (down.length) {
        const again = await this.probeAll(down, signal);
        ranked = { usable: again.usable, refused: ranked.refused || again.refused };
      }
    }
    if (!ranked.usable.length) {
      if (ranked.refused)
        throw new ComfyUIError(REASONS.unavailable, true, ProviderCodes.unavailable, "401/403");
      throw new ProviderHttpError(this.id, 0, unavailableReason(0));
    }
    return ranked.usable;
  }

  private async probeAll(
    servers: Server[],
    signal?: AbortSignal,
  ): Promise<{ usable: Server[]; refused: boolean }> {
    let refused = false;
    const results = await Promise.all(
      servers.map(async (server) => {
        try {
          const q = await this.queue(server.url, this.probe, signal);
          if (q === "refused") {
            refused = true;
            return undefined;
          }
          server.downUntil = 0;
          return { server, load: q.queue_running.length + q.queue_pending.length + server.reserved };
        } catch (err) {
          if (signal?.aborted) throw signal.reason;
          this.markDown(server, err);
          return undefined;
        }
      }),
    );
    const usable = results
      .filter((r): r is { server: Server; load: number } => r !== undefined)
      .sort((a, b) => a.load - b.load)
      .map((r) => r.server);
    return { usable, refused };
  }

  private markDown(server: Server, err: unknown): void {
    const status = err instanceof ProviderHttpError ? err.status : 0;
    // 429: busy, not down; it is simply passed over this time.
    if (status === 429) return;
    server.downUntil = Date.now() + this.downMs;
    this.opts.log?.("comfyui server down", { server: server.url, status, err: String(err) });
  }

  /** GET /queue; "refused" on 401/403 (a proxy turning our token away). */
  private async queue(base: string, f: typeof fetch, signal?: AbortSignal): Promise<QueueInfo | "refused"> {
    const res = await f(`${base}/queue`, { headers: this.headers(), signal });
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel().catch(() => undefined);
      return "refused";
    }
    const body = (await res.json().catch(() => null)) as Partial<QueueInfo> | null;
    if (!res.ok || !body || !Array.isArray(body.queue_running) || !Array.isArray(body.queue_pending)) {
      throw new ProviderHttpError(this.id, res.ok ? 0 : res.status, unavailableReason(0));
    }
    return body as QueueInfo;
  }

  // ---- submitting --------------------------------------------------------------------

  /**
   * Uploads the inputs and queues the prompt on the best server; if that server fails
   * before the prompt is queued (unreachable, 429/5xx after retries), the next one is tried.
   */
  private async submit(
    request: RenderRequest,
    signal: AbortSignal | undefined,
    fill: (images: string[], outputPrefix: string) => ApiWorkflow,
  ): Promise<Job> {
    const ranked = await this.rankServers(signal);
    let lastError: unknown;
    for (const server of ranked) {
      server.reserved++;
      try {
        return await this.submitTo(server, request, signal, fill);
      } catch (err) {
        if (signal?.aborted) throw signal.reason;
        if (!(err instanceof ProviderHttpError)) throw err;
        this.markDown(server, err);
        lastError = err;
      } finally {
        server.reserved--;
      }
    }
    throw lastError;
  }

  private async submitTo(
    server: Server,
    request: RenderRequest,
    signal: AbortSignal | undefined,
    fill: (images: string[], outputPrefix: string) => ApiWorkflow,
  ): Promise<Job> {
    const base = server.url;
    // One random subfolder per task, random file names in it, never `overwrite`: no
    // upload can land on (or be read as) another user's file.
    const folder = `photofx/${randomHex(16)}`;
    const images: string[] = [];
    for (const image of request.images) {
      images.push(await this.upload(base, folder, image.bytes, image.mime, signal));
    }
    const workflow = fill(images, `${folder}/out`);

    const clientId = randomUUID();
    const inbox = new Inbox<JobEvent>();
    const socket =
      this.opts.webSocket === false
        ? undefined
        : await openSocket(
            `${base.replace(/^http/, "ws")}/ws?clientId=${clientId}`,
            this.headers(),
            {
              onMessage: (message) => inbox.push({ kind: "message", message }),
              onClose: () => inbox.push({ kind: "closed" }),
            },
            this.probeTimeoutMs,
          );
    if (!socket && this.opts.webSocket !== false) {
      this.opts.log?.("comfyui socket unavailable, polling history", { server: base });
    }

    // ComfyUI takes the prompt id from the request when given (it answers with it), so a
    // submit cut short by our deadline can still be found and cancelled.
    const ourId = randomUUID();
    try {
      const res = await this.http(`${base}/prompt`, {
        method: "POST",
        headers: { ...this.headers(), "content-type": "application/json" },
        body: JSON.stringify({ prompt: workflow, client_id: clientId, prompt_id: ourId }),
        signal,
      });
      const body = (await res.json().catch(() => null)) as {
        prompt_id?: unknown;
        number?: unknown;
        error?: unknown;
        node_errors?: unknown;
      } | null;
      if (res.status === 400 && body) throw rejected(body.error, body.node_errors, this.opts.log);
      if (res.status === 401 || res.status === 403) {
        throw new ComfyUIError(
          REASONS.unavailable,
          true,
          ProviderCodes.unavailable,
          `POST /prompt ${res.status}`,
        );
      }
      if (!res.ok || typeof body?.prompt_id !== "string") {
        throw new ComfyUIError(
          REASONS.unexpected,
          true,
          ProviderCodes.unexpected,
          `POST /prompt ${res.status}`,
        );
      }
      const number = typeof body.number === "number" ? body.number : Number.NaN;
      this.opts.log?.("comfyui queued", { server: base, promptId: body.prompt_id, socket: Boolean(socket) });
      return { server, base, promptId: body.prompt_id, number, clientId, workflow, socket, inbox };
    } catch (err) {
      socket?.close();
      if (signal?.aborted) await this.cancel(base, ourId);
      throw err;
    }
  }

  /** POST /upload/image; returns the name LoadImage takes ("subfolder/name" as answered). */
  private async upload(
    base: string,
    subfolder: string,
    bytes: Uint8Array,
    mime: string,
    signal?: AbortSignal,
  ): Promise<string> {
    const ext = mime === "image/png" ? "png" : mime === "image/webp" ? "webp" : "jpg";
    const form = new FormData();
    form.append("image", new Blob([new Uint8Array(bytes)], { type: mime }), `${randomHex(16)}.${ext}`);
    form.append("subfolder", subfolder);
    form.append("type", "input");
    const res = await this.http(`${base}/upload/image`, {
      method: "POST",
      headers: this.headers(),
      body: form,
      signal,
    });
    const body = (await res.json().catch(() => null)) as { name?: unknown; subfolder?: unknown } | null;
    if (res.status === 401 || res.status === 403) {
      throw new ComfyUIError(REASONS.unavailable, true, ProviderCodes.unavailable, `upload ${res.status}`);
    }
    const name = body?.name;
    const folder = typeof body?.subfolder === "string" ? body.subfolder : "";
    if (!res.ok || typeof name !== "string" || !name || name.includes("/") || name.includes("\\")) {
      throw new ComfyUIError(REASONS.unexpected, true, ProviderCodes.unexpected, `upload ${res.status}`);
    }
    return folder ? `${folder}/${name}` : name;
  }

  // ---- following ---------------------------------------------------------------------

  /**
   * Waits for the job to finish and returns its /history entry. Socket messages drive it
   * while the socket is open (with a slow /history poll as a safety net); once it is gone,
   * /history is polled every pollMs.
   */
  private async follow(
    job: Job,
    request: RenderRequest,
    signal?: AbortSignal,
    onProgress?: (progress: ComfyUIProgress) => void,
  ): Promise<HistoryEntry> {
    const ctx: ComfyUIProgressContext = { request, promptId: job.promptId, server: job.base };
    const progress = (p: ComfyUIProgress) => {
      try {
        this.opts.onProgress?.(p, ctx);
        onProgress?.(p);
      } catch (err) {
        this.opts.log?.("comfyui onProgress threw", { err: String(err) });
      }
    };
    let started = false;
    let lastQueueCheck = 0;
    const reportPosition = async () => {
      if (started || (!this.opts.onProgress && !onProgress) || Date.now() - lastQueueCheck < 1_000) return;
      lastQueueCheck = Date.now();
      try {
        const q = await this.queue(job.base, this.probe, signal);
        const position = q === "refused" ? undefined : queuePosition(q, job.promptId, job.number);
        if (position !== undefined && !started) progress({ value: 0, max: 1, queuePosition: position });
      } catch {
        // Only a progress hint.
      }
    };
    await reportPosition();

    let socketOpen = Boolean(job.socket);
    for (;;) {
      const event = await job.inbox.next(socketOpen ? this.safetyPollMs : this.pollMs, signal);
      if (!event || event.kind === "closed") {
        if (event?.kind === "closed" && socketOpen) {
          socketOpen = false;
          this.opts.log?.("comfyui socket closed, polling history", { promptId: job.promptId });
        }
        const entry = await this.history(job, signal);
        if (entry) return entry;
        continue;
      }
      const { type, data } = event.message;
      if (type === "status") {
        await reportPosition();
        continue;
      }
      if (data.prompt_id !== job.promptId) continue;
      switch (type) {
        case "execution_start":
          started = true;
          progress({ value: 0, max: 1, queuePosition: 0 });
          break;
        case "progress":
          started = true;
          if (typeof data.value === "number" && typeof data.max === "number") {
            progress({ value: data.value, max: data.max, queuePosition: 0 });
          }
          break;
        case "execution_error":
          throw executionError(data);
        case "execution_interrupted":
          throw new ComfyUIError(
            REASONS.interrupted,
            true,
            ProviderCodes.unexpected,
            "execution_interrupted",
          );
        case "execution_success":
          return this.finalHistory(job, signal);
        case "executing":
          if (data.node === null) return this.finalHistory(job, signal);
          break;
      }
    }
  }

  /** /history right after the job ended (it is written just before "done" is sent). */
  private async finalHistory(job: Job, signal?: AbortSignal): Promise<HistoryEntry> {
    for (let i = 0; ; i++) {
      const entry = await this.history(job, signal);
      if (entry) return entry;
      if (i >= 20)
        throw new ComfyUIError(REASONS.unexpected, true, ProviderCodes.unexpected, "no history entry");
      await sleep(Math.min(this.pollMs, 250), signal);
    }
  }

  /** GET /history/{id}: the entry once the job has ended (throws if it failed), else undefined. */
  private async history(job: Job, signal?: AbortSignal): Promise<HistoryEntry | undefined> {
    const res = await this.http(`${job.base}/history/${encodeURIComponent(job.promptId)}`, {
      headers: this.headers(),
      signal,
    });
    const body = (await res.json().catch(() => null)) as Record<string, HistoryEntry> | null;
    if (!res.ok || !body || typeof body !== "object") {
      throw new ComfyUIError(REASONS.unexpected, true, ProviderCodes.unexpected, `history ${res.status}`);
    }
    const entry = body[job.promptId];
    if (!entry) return undefined;
    if (entry.status?.status_str === "error" || entry.status?.completed === false) {
      const messages = entry.status?.messages ?? [];
      const failure = messages.find(([t]) => t === "execution_error");
      if (failure) throw executionError(failure[1] ?? {});
      throw new ComfyUIError(REASONS.interrupted, true, ProviderCodes.unexpected, "history status error");
    }
    return entry;
  }

  /** GET /view of a saved image, capped in size; a missing file is a render without image. */
  private async download(job: Job, ref: OutputRef, signal?: AbortSignal): Promise<Uint8Array> {
    const q = new URLSearchParams({
      filename: ref.filename,
      subfolder: ref.subfolder ?? "",
      type: ref.type ?? "output",
    });
    const res = await this.http(`${job.base}/view?${q}`, { headers: this.headers(), signal });
    if (res.status === 404) {
      await res.body?.cancel().catch(() => undefined);
      throw new ComfyUIError(REASONS.noImage, false, ProviderCodes.noImage, `view 404 ${ref.filename}`);
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw new ComfyUIError(
        "The image service's result could not be downloaded. Please try again.",
        true,
        ProviderCodes.badOutput,
        `view ${res.status}`,
      );
    }
    return readCapped(res, MAX_OUTPUT_BYTES);
  }

  // ---- cancelling --------------------------------------------------------------------

  /**
   * Stops our job: interrupt it if it is the one running (naming it, so a newer ComfyUI
   * never stops another job), otherwise delete it from the queue. A waiting job may start
   * between our look and the delete, so the queue is read a second time. Never throws.
   */
  private async cancel(base: string, promptId: string): Promise<void> {
    const timeout = () => AbortSignal.timeout(this.probeTimeoutMs);
    try {
      for (let look = 0; look < 2; look++) {
        const q = await this.queue(base, this.probe, timeout());
        if (q === "refused") return;
        if (q.queue_running.some((item) => item[1] === promptId)) {
          await this.post(base, "/interrupt", { prompt_id: promptId }, timeout());
          this.opts.log?.("comfyui interrupted", { promptId });
          return;
        }
        if (!q.queue_pending.some((item) => item[1] === promptId)) return;
        await this.post(base, "/queue", { delete: [promptId] }, timeout());
        this.opts.log?.("comfyui removed from queue", { promptId });
      }
    } catch (err) {
      this.opts.log?.("comfyui cancel failed", { promptId, err: String(err) });
    }
  }

  private async post(base: string, path: string, body: unknown, signal: AbortSignal): Promise<void> {
    const res = await this.probe(`${base}${path}`, {
      method: "POST",
      headers: { ...this.headers(), "content-type": "application/json" },
      body: JSON.stringify(body),
      signal,
    });
    await res.body?.cancel().catch(() => undefined);
  }

  private headers(): Record<string, string> {
    return this.opts.token ? { authorization: `Bearer ${this.opts.token}` } : {};
  }
}

// ---- helpers -----------------------------------------------------------------------

/** A queue of events with a waiting reader: next() resolves with the next one, or undefined on timeout. */
class Inbox<T> {
  private readonly items: T[] = [];
  private waiter?: (item: T) => void;

  push(item: T): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter(item);
    } else this.items.push(item);
  }

  next(timeoutMs: number, signal?: AbortSignal): Promise<T | undefined> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.items.length) return Promise.resolve(this.items.shift());
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.waiter = undefined;
      };
      const timer = setTimeout(() => {
        done();
        resolve(undefined);
      }, timeoutMs);
      const onAbort = () => {
        done();
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiter = (item) => {
        done();
        resolve(item);
      };
    });
  }
}

function baseUrl(url: string): string {
  const u = new URL(url);
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new Error(`ComfyUI URL must be http(s): ${url}`);
  return `${u.origin}${u.pathname.replace(/\/+$/, "")}`;
}

function randomHex(bytes: number): string {
  return randomBytes(bytes).toString("hex");
}

/** Jobs ahead of ours: everything running, and waiting jobs with a lower number. */
function queuePosition(q: QueueInfo, promptId: string, number: number): number | undefined {
  if (q.queue_running.some((i) => i[1] === promptId)) return 0;
  if (!q.queue_pending.some((i) => i[1] === promptId)) return undefined;
  const ahead = q.queue_pending.filter((i) => i[1] !== promptId && (Number.isNaN(number) || i[0] < number));
  return q.queue_running.length + ahead.length;
}

/** The first saved image ("output"); a temp preview (PreviewImage) is never the result. */
function pickOutput(entry: HistoryEntry): OutputRef | undefined {
  for (const out of Object.values(entry.outputs ?? {})) {
    for (const img of out?.images ?? []) {
      if (img && typeof img.filename === "string" && img.filename && (img.type ?? "output") === "output") {
        return { ...img, type: "output" };
      }
    }
  }
  return undefined;
}

/** Shortens a server message to one line a person can read. */
function summarise(text: unknown, max = 160): string {
  const line = String(text ?? "")
    .split("\n")
    .map((l) => l.trim())
    .find(Boolean);
  if (!line) return "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** An execution_error message (socket or history) as a failed render. */
function executionError(data: Record<string, unknown>): ComfyUIError {
  const node = typeof data.node_type === "string" ? data.node_type : "a node";
  const message = summarise(data.exception_message) || summarise(data.exception_type) || "unknown error";
  return new ComfyUIError(
    `The image service failed while rendering (${node}: ${message}). Please try again.`,
    true,
    ProviderCodes.unexpected,
    `${String(data.exception_type ?? "")}: ${String(data.exception_message ?? "")}`,
  );
}

/** POST /prompt's 400 (`error` and `node_errors`) as a clear, non-retryable failure. */
function rejected(error: unknown, nodeErrors: unknown, log?: ComfyUIOptions["log"]): ComfyUIError {
  const parts: string[] = [];
  if (nodeErrors && typeof nodeErrors === "object") {
    for (const [id, ne] of Object.entries(nodeErrors as Record<string, unknown>)) {
      const n = ne as {
        class_type?: unknown;
        errors?: Array<{ message?: unknown; details?: unknown }>;
      } | null;
      for (const e of n?.errors ?? []) {
        parts.push(
          `${String(n?.class_type ?? "node")} #${id}: ${summarise(e.message)}${e.details ? ` (${summarise(e.details, 120)})` : ""}`,
        );
      }
    }
  }
  const top = error && typeof error === "object" ? (error as { message?: unknown }).message : error;
  const detail = parts.length ? parts.join("; ") : summarise(top) || "rejected";
  log?.("comfyui prompt rejected", { error, nodeErrors });
  return new ComfyUIError(
    `The image server rejected this effect's workflow (${summarise(detail, 200)}).`,
    false,
    ProviderCodes.unavailable,
    detail,
  );
}
