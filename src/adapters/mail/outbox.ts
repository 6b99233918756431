import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import nodemailer, { type Transporter } from "nodemailer";
import type { MailMessage, MailPort } from "@/core/ports/mail";

/** The outbox folder under DATA_DIR. */
export const outboxDir = (dataDir: string): string => path.join(dataDir, "mail");

/**
 * A file name that sorts by time: `20261125T072032123Z-000001-1a2b3c.eml` (UTC to the
 * millisecond, then this process's counter, then a random tail so two processes writing in
 * the same millisecond never collide).
 */
export function outboxFileName(at: Date, seq: number): string {
  const stamp = at.toISOString().replace(/[-:]/g, "").replace(".", "");
  return `${stamp}-${String(seq % 1_000_000).padStart(6, "0")}-${randomBytes(3).toString("hex")}.eml`;
}

/**
 * The embedded mail "server": each message is written as an RFC 822 `.eml` file (composed
 * by nodemailer, exactly what SMTP would carry) to `DATA_DIR/mail/`. A file appears whole
 * or not at all (written under a dot-name, then renamed). Files are readable by the owner
 * only: they hold sign-in links.
 */
export class OutboxMail implements MailPort {
  readonly dir: string;
  private readonly composer: Transporter;
  private seq = 0;

  constructor(
    dataDir: string,
    private readonly from: string,
  ) {
    this.dir = outboxDir(dataDir);
    this.composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
  }

  async send(message: MailMessage): Promise<void> {
    const info = await this.composer.sendMail({
      from: this.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.html ? { html: message.html } : {}),
    });
    const raw = info.message as unknown;
    if (!Buffer.isBuffer(raw)) throw new Error("the mail composer returned no message");
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const name = outboxFileName(new Date(), ++this.seq);
    const temp = path.join(this.dir, `.${name}.tmp`);
    try {
      await fs.writeFile(temp, raw, { mode: 0o600 });
      await fs.rename(temp, path.join(this.dir, name));
    } catch (err) {
      await fs.rm(temp, { force: true });
      throw err;
    }
  }
}
