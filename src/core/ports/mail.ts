/**
 * The mail port: sends one message. Adapters (src/adapters/mail): SMTP through nodemailer
 * when SMTP_URL is set, else the outbox (RFC 822 files in DATA_DIR/mail); the composition
 * root picks one.
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
