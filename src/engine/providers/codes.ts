/**
 * Stable codes of the hosted providers' failures. A failed task stores the code as its
 * failedCode next to the English failedReason, and the browser shows the message
 * `errors.server.task_<code>` in the user's language. Reasons that mean the same to the
 * user share one code; every code needs that message in each messages/<locale>/errors.json.
 */
export const ProviderCodes = {
  /** The service finished without an image (nothing drawn, stopped early, no image part). */
  noImage: "providerNoImage",
  /** The service's result could not be used (unreadable, too large, bad address, download failed). */
  badOutput: "providerBadOutput",
  /** The service could not read or process the uploaded photo. */
  unreadablePhoto: "providerUnreadablePhoto",
  /** Not usable on this server right now (bad key, no access, no provider left). */
  unavailable: "providerUnavailable",
  /** A safety filter blocked the photo, the request or the generated image. */
  safetyBlocked: "providerSafetyBlocked",
  /** Refused for possibly prohibited content. */
  prohibited: "providerProhibited",
  /** Withheld for being too close to existing protected material. */
  recitation: "providerRecitation",
  /** Refused because the request contains blocked terms. */
  blockedTerms: "providerBlockedTerms",
  /** Refused for another reason (including sensitive personal information). */
  refused: "providerRefused",
  /** The render took longer than the router's limit. */
  timeout: "providerTimeout",
  /** The service answered or failed in a way we did not expect. */
  unexpected: "providerUnexpected",
  /** 429, 5xx or no answer after all retries. */
  busy: "providerBusy",
} as const;

export type ProviderCode = (typeof ProviderCodes)[keyof typeof ProviderCodes];

/** A user-facing failure: the English reason (the spec's failedReason) and its code. */
export interface ProviderReason {
  code: ProviderCode;
  text: string;
}
