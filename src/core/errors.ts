/**
 * Domain errors. Every refusal the product makes is an AppError with a stable code and a
 * message a user can read; the API maps codes to HTTP statuses in one table
 * (src/api/error-map.ts). Messages quote the specification where it gives wording.
 */
export type AppErrorCode =
  | "UNAUTHENTICATED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "BAD_REQUEST"
  | "VALIDATION"
  | "VERIFICATION_FAILED"
  | "INSUFFICIENT_CREDITS"
  | "UPLOAD_REJECTED"
  | "PAYLOAD_TOO_LARGE"
  | "CONFLICT"
  | "RATE_LIMITED"
  | "UPGRADE_REQUIRED"
  | "UNAVAILABLE"
  | "EFFECT_DISABLED"
  /** An Idempotency-Key used again with a different request. */
  | "IDEMPOTENCY_MISMATCH"
  /** A subscription to a plan the user already has (or one that is still being paid). */
  | "ALREADY_SUBSCRIBED"
  /** An immediate generate call whose images were not ready in time (refunded). */
  | "TIMEOUT";

/**
 * A message the client can show in the user's language: `key` names an entry of the
 * `errors.server` message catalogue, `values` fills its placeholders. `message` stays the
 * English text for API users and logs.
 */
export interface MessageRef {
  key: string;
  values?: Record<string, string | number>;
}

export class AppError extends Error {
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly i18n?: MessageRef,
  ) {
    super(message);
    this.name = "AppError";
  }
}

/** The specification's user-facing messages, in one place so server and client agree. */
export const Messages = {
  signIn: "Please sign in to continue",
  uploadRejected:
    "Some images were rejected. Please ensure each image is less than 10MB and of type PNG, JPG, JPEG, or WebP.",
  noImages: "Please upload at least one image",
  verificationFailed: "Verification failed. Please try again.",
  insufficientCredits: "Insufficient credits",
  generationFailed: "Image generation failed",
  timeout: "Generation timeout. Please try again.",
  effectDisabled: "This effect is switched off on this server right now.",
} as const;

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
