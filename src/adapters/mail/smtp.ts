import nodemailer, { type Transporter } from "nodemailer";
import type { MailMessage, MailPort } from "@/core/ports/mail";

/**
 * Sends through an SMTP server (`SMTP_URL`: `smtp://user:pass@host:587`, upgraded with
 * STARTTLS when the server offers it, or `smtps://…:465`). Options in the URL's query
 * (`?tls.rejectUnauthorized=false`, `?pool=true`) are nodemailer's. `send` resolves once the
 * server accepted the message and rejects with the server's answer otherwise.
 */
export class SmtpMail implements MailPort {
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    // Bounded waits (nodemailer's defaults are minutes): a dead server fails a send in seconds.
    this.transport = nodemailer.createTransport({
      url,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
  }

  async send(message: MailMessage): Promise<void> {
    await this.transport.sendMail({
      from: this.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.html ? { html: message.html } : {}),
    });
  }

  close(): void {
    this.transport.close();
  }
}
