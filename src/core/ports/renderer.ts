/**
 * The render port: the one contract for "something that renders a request". The local
 * CPU engine, every hosted provider and the router over them all implement `Renderer`. Input images, effect, options and seed in; one output image and its
 * metadata out. Providers never see user ids, URLs they could fetch, or the database.
 */

export interface EngineImage {
  /** Encoded image bytes (PNG, JPEG or WebP; uploads are already sanitized). */
  bytes: Uint8Array;
  mime: string;
}

export interface RenderRequest {
  /** Catalogue effect id, e.g. "inverted-face-filter". */
  effectId: string;
  /** Which submit route asked: "v1" (nano-banana) or "v2" (nano-banana-v2). */
  route: "v1" | "v2";
  images: EngineImage[];
  /** Validated per-effect options from the catalogue (e.g. outpainting edges). */
  options: Record<string, unknown>;
  /** The user's optional mood text ("" when the effect takes none). */
  prompt: string;
  /** Deterministic seed: the same input and seed give the same output. */
  seed: number;
}

export interface RenderResult {
  /** Encoded output image. */
  bytes: Uint8Array;
  mime: "image/png" | "image/webp" | "image/jpeg";
  width: number;
  height: number;
  /** Which provider and model produced it (stored with the image, shown in details). */
  provider: string;
  model: string;
}

/**
 * A failure the user should read. `reason` becomes the task's failedReason verbatim;
 * `retryable` tells the runner whether trying again could help (provider 5xx, timeouts).
 */
export class EngineError extends Error {
  constructor(
    readonly reason: string,
    readonly retryable = false,
    /** Stable code for a translated message (`errors.server.task_<code>`); "engine" by default. */
    readonly code = "engine",
  ) {
    super(reason);
    this.name = "EngineError";
  }

  /** The provider that failed, when a router knows it (the console's per-engine figures). */
  engineId?: string;
}

/**
 * How far a render is, where the backend says so: steps done of the total (ComfyUI's
 * sampler), and the position in the backend's queue while it waits.
 */
export interface RenderProgress {
  value: number;
  max: number;
  queuePosition?: number;
}

export interface Renderer {
  /** Stable id stored with each image, e.g. "local", "fal"; "router" for the router. */
  readonly id: string;
  /** Whether this renderer can render the effect at all. */
  supports(effectId: string): boolean;
  /**
   * The most input images one render of the effect takes, where the backend has a hard limit
   * (ComfyUI's built-in workflows take three); undefined: no limit known. Checked before
   * charging, so a request with more photos is refused rather than failed and refunded.
   */
  maxImages?(effectId: string): number | undefined;
  /**
   * Renders one output. Rejects with EngineError for user-facing failures. A backend that
   * knows its progress reports it through `onProgress` (optional on both sides).
   */
  render(
    request: RenderRequest,
    signal?: AbortSignal,
    onProgress?: (progress: RenderProgress) => void,
  ): Promise<RenderResult>;
}
