/**
 * The bot-check free users pass before each submit. ALTCHA (self-hosted proof of work) by
 * default, Cloudflare Turnstile when configured; either way the token travels in the
 * payload's `turnstileToken`, is single-use and expires.
 */
export interface BotCheck {
  readonly kind: "altcha" | "turnstile";
  /**
   * True when the token is genuine, unexpired and not used before; it is spent by this
   * call. Never throws for a bad token, only for an outage.
   */
  verify(token: string, ctx: { ip?: string; hostname?: string }): Promise<boolean>;
}

/** What the browser needs to run the check. */
export interface BotCheckClientConfig {
  kind: "altcha" | "turnstile";
  /** ALTCHA: where the widget fetches a challenge. */
  challengeUrl?: string;
  /** Turnstile: the public site key. */
  siteKey?: string;
}
