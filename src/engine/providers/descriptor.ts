import type { Env } from "@/config/env";
import type { Renderer } from "@/core/ports/renderer";
import type { RetryPolicy } from "./http";

/**
 * One row of the provider table: everything the router, the fallback order, the spend cap,
 * the breaker and the generic webhook route need to know about a provider. Adding a
 * provider = its folder (with this descriptor, its fake and its contract test) + one row in
 * table.ts (ADR 010).
 */
export interface ProviderDescriptor {
  /** Stable id: the value of ENGINE / ENGINE_OVERRIDES / ENGINE_FALLBACK, stored with each image. */
  readonly id: string;
  /** Every environment variable the provider reads (the README's table lists them). */
  readonly envKeys: readonly string[];
  /** The variable(s) that configure it, named in start-up errors ("needs FAL_KEY to be set"). */
  readonly requires: string;
  /** Whether the environment configures it. */
  configured(env: Env): boolean;
  /**
   * Photos stay on the operator's hardware (local, ComfyUI): the default fallback from such
   * an engine never moves a task to a third party.
   */
  readonly selfHosted: boolean;
  /**
   * With ENGINE unset, the configured provider with the lowest number renders; null: a key
   * alone never selects it (a stray key must not start sending photos to a third party).
   */
  readonly autoSelect: number | null;
  /** Which model renders each submit route (stored with the image; prices differ per route). */
  models(env: Env): { v1: string; v2: string };
  /** Cost of one image per route, in the operator's currency (the spend cap's unit). */
  cost(env: Env): { v1: number; v2: number };
  /** Daily spend cap; unset: none. */
  dailyCap(env: Env): number | undefined;
  create(env: Env, ctx: ProviderContext): CreatedProvider;
}

/** What a provider's `create` gets from the setup. */
export interface ProviderContext {
  retry: RetryPolicy;
  /** Longest a task may live (providers keep uploaded inputs no longer than this, plus slack). */
  taskTimeoutSeconds: number;
  /** The local engine (the worker-thread pool, or a test renderer): the local row returns it. */
  local: Renderer;
  log(msg: string, extra?: Record<string, unknown>): void;
}

/** A signature-verified callback receiver for `POST /api/providers/:id/webhook`. */
export interface WebhookReceiver {
  /** null when accepted; otherwise why it was refused (logged; the route answers 401). */
  receive(rawBody: Uint8Array, headers: Headers): Promise<string | null>;
}

export interface CreatedProvider {
  renderer: Renderer;
  /** Set when the provider runs in webhook mode. */
  webhook?: WebhookReceiver;
}
