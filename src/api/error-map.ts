import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppErrorCode } from "@/core/errors";

/** The one table from domain error codes to HTTP statuses. */
export const HTTP_STATUS: Record<AppErrorCode, ContentfulStatusCode> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  BAD_REQUEST: 400,
  VALIDATION: 400,
  VERIFICATION_FAILED: 400,
  UPGRADE_REQUIRED: 403,
  INSUFFICIENT_CREDITS: 402,
  UPLOAD_REJECTED: 400,
  PAYLOAD_TOO_LARGE: 413,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
  /** A runtime setting switched the effect off (the request is fine; the server's state refuses it). */
  EFFECT_DISABLED: 409,
  /** Stripe's rule too: a key names one request; reused with another body it is refused. */
  IDEMPOTENCY_MISMATCH: 422,
  /** The request is fine; the account's state (a live subscription) refuses it. */
  ALREADY_SUBSCRIBED: 409,
  /** POST /api/img/create (or a submit with Prefer: wait) past its wait: the tasks were refunded. */
  TIMEOUT: 504,
};
