/**
 * The mail port: sends one message. No adapter yet; the account issue (verification and
 * password-reset mail) brings the first (SMTP or an HTTP mail service), chosen in the
 * composition root like every other adapter.
 */
export interface MailMessage {
  to: string;
  subject: string;
  /** Plain-text body (always sent). */
  text: string;
  /** Optional HTML alternative. */
  html?: string;
}

export interface MailPort {
  /** Resolves once the message is accepted for delivery; rejects when it cannot be sent. */
  send(message: MailMessage): Promise<void>;
}
