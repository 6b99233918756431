/**
 * The browser's side of generation: submit, then follow each task until it ends. It reads
 * every answer shape the spec lists, follows server-sent events (one stream per tab for
 * all of its pending tasks), and falls back to the spec's polling (POST taskResult, at most
 * 60 attempts 5 s apart). Framework-free, so it is tested on its own.
 */

export const POLL_INTERVAL_MS = 5_000;
export const POLL_MAX_ATTEMPTS = 60;

/** The spec's client messages (English; the UI passes translated ones). */
export const ClientMessages = {
  signIn: "Please sign in to continue",
  verificationFailed: "Verification failed. Please try again.",
  somethingWrong: "Something went wrong. Please try again.",
  noTaskIds: "No taskId(s) returned from server",
  noImageUrl: "No image URL returned from server",
  allFailed: "All image generation attempts failed",
  taskFailed: "Image generation failed",
  timeout: "Generation timeout. Please try again.",
} as const;
export type ClientMessageTable = { [K in keyof typeof ClientMessages]: string };

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === "object" ? (v as Json) : {});
const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined);

/** data.taskIds, data.taskId or taskId; an empty list when none is present. */
export function extractTaskIds(answer: unknown): string[] {
  const a = obj(answer);
  const data = obj(a.data);
  if (Array.isArray(data.taskIds)) return data.taskIds.filter((t): t is string => typeof t === "string");
  const one = str(data.taskId) ?? str(a.taskId);
  return one ? [one] : [];
}

/** What a pending answer may say about its progress (ours, beyond the spec). */
export interface TaskProgress {
  /** Steps done and in all, where the backend tells. */
  value?: number;
  max?: number;
  /** Images ahead of this one in the backend's queue. */
  queuePosition?: number;
  /** About how many seconds are left. */
  etaSeconds?: number;
}

export type TaskState =
  | { kind: "pending"; progress?: TaskProgress }
  | { kind: "success"; imageUrl: string }
  /** `code`: our failedCode when the server sent one, for a translated reason. */
  | { kind: "failed"; reason: string; code?: string };

/**
 * Reads one taskResult answer: code or status (1 success, 2 failed, anything else
 * pending); the image from data.imageUrl, data.imgAfterSrc, imageUrl or url; the reason
 * from failedReason, msg or message.
 */
export function readTaskAnswer(answer: unknown, messages: ClientMessageTable = ClientMessages): TaskState {
  const a = obj(answer);
  const data = obj(a.data);
  const code = Number(a.code ?? a.status);
  if (code === 1 || Number(a.status) === 1) {
    const imageUrl = str(data.imageUrl) ?? str(data.imgAfterSrc) ?? str(a.imageUrl) ?? str(a.url);
    if (!imageUrl) return { kind: "failed", reason: messages.noImageUrl };
    return { kind: "success", imageUrl };
  }
  if (code === 2 || Number(a.status) === 2) {
    const reason = str(a.failedReason) ?? str(a.msg) ?? str(a.message) ?? messages.taskFailed;
    const failedCode = str(a.failedCode);
    return failedCode ? { kind: "failed", reason, code: failedCode } : { kind: "failed", reason };
  }
  const progress = readProgress(a);
  return progress ? { kind: "pending", progress } : { kind: "pending" };
}

const num = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;

/** The progress fields of a pending answer, if any are there and sane. */
function readProgress(a: Json): TaskProgress | undefined {
  const p = obj(a.progress);
  const value = num(p.value);
  const max = num(p.max);
  const out: TaskProgress = {};
  if (value !== undefined && max !== undefined && max > 0 && value <= max) Object.assign(out, { value, max });
  const queuePosition = num(p.queuePosition);
  if (queuePosition !== undefined) out.queuePosition = Math.round(queuePosition);
  const eta = num(a.etaSeconds);
  if (eta !== undefined && eta > 0) out.etaSeconds = Math.round(eta);
  return Object.keys(out).length ? out : undefined;
}

/** What a failed submit means for the UI. */
export type SubmitFailure =
  | { kind: "signIn"; message: string }
  | { kind: "insufficientCredits" }
  | { kind: "upgrade"; message: string }
  | { kind: "verification"; message: string }
  | { kind: "error"; message: string };

/** Maps a non-2xx submit answer to the spec's error rows. */
export function classifySubmitFailure(
  status: number,
  body: unknown,
  messages: ClientMessageTable = ClientMessages,
): SubmitFailure {
  const message = str(obj(body).message);
  if (status === 401) return { kind: "signIn", message: messages.signIn };
  if (status === 402) return { kind: "insufficientCredits" };
  if (obj(body).code === "UPGRADE_REQUIRED")
    return { kind: "upgrade", message: message ?? messages.somethingWrong };
  if (status === 400 && message?.toLowerCase().includes("verification")) {
    return { kind: "verification", message: message ?? messages.verificationFailed };
  }
  return { kind: "error", message: message ?? messages.somethingWrong };
}

export interface FollowOptions {
  /** Base of the generation API, e.g. "/api/img/nano-banana". */
  base: string;
  fetch?: typeof fetch;
  /** Creates an EventSource; absent (or throwing) means polling only. */
  eventSource?: (url: string) => EventSource;
  /** The stream shared by the tasks followed (default: this tab's, one per base). */
  hub?: TaskStreamHub;
  intervalMs?: number;
  maxAttempts?: number;
  signal?: AbortSignal;
  messages?: ClientMessageTable;
  /** Hears each pending answer's progress (steps, queue position, time left). */
  onProgress?: (progress: TaskProgress) => void;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });

interface Follower {
  messages: ClientMessageTable;
  onProgress?: (progress: TaskProgress) => void;
  /** A final state, or null: SSE unavailable or dropped (the caller polls). */
  resolve: (state: TaskState | null) => void;
}

/**
 * One EventSource per tab for all of its pending tasks: `taskEvents?taskIds=a,b,c` (the
 * spec's `?taskId=` for a single task). Tasks followed in the same tick share one stream;
 * a task added later (a new batch) reopens the stream with every pending task (the server
 * sends each task's current answer first, so nothing is missed). When the stream fails
 * (refused, e.g. 429 past the per-user cap, or dropped) its tasks fall back to polling.
 */
export class TaskStreamHub {
  private readonly followers = new Map<string, Follower[]>();
  private current: { source: EventSource; ids: ReadonlySet<string> } | null = null;
  private scheduled = false;
  private factory: ((url: string) => EventSource) | undefined;

  constructor(private readonly base: string) {}

  /** Follows a task over the shared stream; resolves null when events are unavailable or drop. */
  follow(
    taskId: string,
    eventSource: (url: string) => EventSource,
    messages: ClientMessageTable,
    onProgress?: (progress: TaskProgress) => void,
    signal?: AbortSignal,
  ): Promise<TaskState | null> {
    this.factory = eventSource;
    return new Promise((resolve) => {
      const follower: Follower = { messages, onProgress, resolve };
      this.followers.set(taskId, [...(this.followers.get(taskId) ?? []), follower]);
      signal?.addEventListener("abort", () => this.drop(taskId, follower, null));
      if (signal?.aborted) return this.drop(taskId, follower, null);
      this.schedule();
    });
  }

  /** Task ids the open stream carries (none when closed). */
  get streaming(): string[] {
    return this.current ? [...this.current.ids] : [];
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.open();
    });
  }

  /** (Re)opens the stream when some pending task is not on it. */
  private open(): void {
    const ids = [...this.followers.keys()];
    if (!ids.length || (this.current && ids.every((id) => this.current!.ids.has(id)))) return;
    this.close();
    const query =
      ids.length === 1
        ? `taskId=${encodeURIComponent(ids[0]!)}`
        : `taskIds=${ids.map(encodeURIComponent).join(",")}`;
    let source: EventSource;
    try {
      source = this.factory!(`${this.base}/taskEvents?${query}`);
    } catch {
      for (const id of ids) this.settle(id, null);
      return;
    }
    const stream = { source, ids: new Set(ids) };
    this.current = stream;
    source.addEventListener("task", (e) => {
      if (this.current !== stream) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse((e as MessageEvent<string>).data);
      } catch {
        return;
      }
      // The multi-task form names the task; the spec's single-task form does not.
      const named = str(obj(parsed).taskId);
      const taskId = named ?? (stream.ids.size === 1 ? ids[0] : undefined);
      if (!taskId || !this.followers.has(taskId)) return;
      for (const f of this.followers.get(taskId)!) {
        const state = readTaskAnswer(parsed, f.messages);
        if (state.kind === "pending") {
          if (state.progress) f.onProgress?.(state.progress);
        } else f.resolve(state);
      }
      const state = readTaskAnswer(parsed);
      if (state.kind !== "pending") this.followers.delete(taskId);
      if (!this.followers.size) this.close();
    });
    source.onerror = () => {
      if (this.current !== stream) return;
      this.close();
      for (const id of stream.ids) this.settle(id, null);
    };
  }

  private close(): void {
    this.current?.source.close();
    this.current = null;
  }

  private settle(taskId: string, state: TaskState | null): void {
    for (const f of this.followers.get(taskId) ?? []) f.resolve(state);
    this.followers.delete(taskId);
  }

  private drop(taskId: string, follower: Follower, state: TaskState | null): void {
    const list = (this.followers.get(taskId) ?? []).filter((f) => f !== follower);
    if (list.length) this.followers.set(taskId, list);
    else this.followers.delete(taskId);
    follower.resolve(state);
    if (!this.followers.size) this.close();
  }
}

/** This tab's hubs, one per API base. */
const hubs = new Map<string, TaskStreamHub>();
const hubFor = (base: string): TaskStreamHub => {
  let hub = hubs.get(base);
  if (!hub) hubs.set(base, (hub = new TaskStreamHub(base)));
  return hub;
};

/** Follows server-sent events until the task ends; null when SSE is unavailable or drops. */
function followEvents(
  opts: FollowOptions,
  taskId: string,
  messages: ClientMessageTable,
): Promise<TaskState | null> {
  if (!opts.eventSource) return Promise.resolve(null);
  return (opts.hub ?? hubFor(opts.base)).follow(
    taskId,
    opts.eventSource,
    messages,
    opts.onProgress,
    opts.signal,
  );
}

/**
 * Follows one task to its end: server-sent events first (on the tab's one stream, shared
 * with every task followed alongside); if they are unavailable or drop, the spec's polling
 * takes over. Resolves to success or failure, never rejects; after
 * maxAttempts polls the answer is the timeout message.
 */
export async function followTask(taskId: string, opts: FollowOptions): Promise<TaskState> {
  const messages = opts.messages ?? ClientMessages;
  const viaEvents = await followEvents(opts, taskId, messages);
  if (viaEvents) return viaEvents;
  const doFetch = opts.fetch ?? fetch;
  const interval = opts.intervalMs ?? POLL_INTERVAL_MS;
  const max = opts.maxAttempts ?? POLL_MAX_ATTEMPTS;
  for (let attempt = 1; attempt <= max; attempt++) {
    if (opts.signal?.aborted) break;
    try {
      const res = await doFetch(`${opts.base}/taskResult`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ taskId }),
        signal: opts.signal,
      });
      if (res.status === 401) return { kind: "failed", reason: messages.signIn };
      if (res.ok) {
        const state = readTaskAnswer(await res.json(), messages);
        if (state.kind !== "pending") return state;
        if (state.progress) opts.onProgress?.(state.progress);
      } else if (res.status === 404) {
        return { kind: "failed", reason: messages.taskFailed };
      }
    } catch {
      // A network blip: keep polling until the attempts run out.
    }
    if (attempt < max) await sleep(interval, opts.signal);
  }
  return { kind: "failed", reason: messages.timeout };
}

/** `{prefix}_{yyyymmdd_hhmmss}_{index}.png`, in local time. */
export function downloadFileName(prefix: string, index: number, date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  const stamp = `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}_${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
  return `${prefix}_${stamp}_${index}.png`;
}
