import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { afterEach, describe, expect, it } from "vitest";
import { SmtpMail } from "./smtp";

interface Received {
  from: string;
  to: string[];
  raw: Buffer;
  user?: string;
}

/** A tiny SMTP server on a free local port that keeps what it receives. */
async function startServer(opts: { auth?: { user: string; pass: string }; reject?: string } = {}) {
  const received: Received[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ["STARTTLS"],
    authOptional: !opts.auth,
    allowInsecureAuth: true,
    onAuth(auth, _session, cb) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass)
        return cb(null, { user: auth.username });
      cb(new Error("Invalid username or password"));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (opts.reject) {
          const err = Object.assign(new Error(opts.reject), { responseCode: 550 });
          return cb(err);
        }
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          user: typeof session.user === "string" ? session.user : undefined,
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return { server, port, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe("the SMTP mail adapter", () => {
  it("delivers text and HTML to an SMTP server, logging in with the URL's credentials", async () => {
    const smtp = await startServer({ auth: { user: "mailer", pass: "s3cret pass" } });
    cleanups.push(smtp.close);
    const mail = new SmtpMail(
      `smtp://mailer:${encodeURIComponent("s3cret pass")}@127.0.0.1:${smtp.port}`,
      "photofx <no-reply@photofx.test>",
    );
    cleanups.push(async () => mail.close());
    await mail.send({
      to: "ana@example.com",
      subject: "Réinitialisez votre mot de passe",
      text: "Bonjour,\nhttp://localhost:3000/fr/reset-password?token=abc\n",
      html: "<p>Bonjour</p>",
    });
    expect(smtp.received).toHaveLength(1);
    const [got] = smtp.received;
    expect(got!.user).toBe("mailer");
    expect(got!.from).toBe("no-reply@photofx.test");
    expect(got!.to).toEqual(["ana@example.com"]);
    const parsed = await simpleParser(got!.raw);
    expect(parsed.subject).toBe("Réinitialisez votre mot de passe");
    expect(parsed.text).toContain("http://localhost:3000/fr/reset-password?token=abc");
    expect(parsed.html).toContain("<p>Bonjour</p>");
  });

  it("rejects when the server refuses the message or the login", async () => {
    const refusing = await startServer({ reject: "Mailbox unavailable" });
    cleanups.push(refusing.close);
    const mail = new SmtpMail(`smtp://127.0.0.1:${refusing.port}`, "no-reply@photofx.test");
    cleanups.push(async () => mail.close());
    await expect(mail.send({ to: "a@example.com", subject: "s", text: "t" })).rejects.toThrow(
      /Mailbox unavailable/,
    );

    const authed = await startServer({ auth: { user: "u", pass: "right" } });
    cleanups.push(authed.close);
    const wrong = new SmtpMail(`smtp://u:wrong@127.0.0.1:${authed.port}`, "no-reply@photofx.test");
    cleanups.push(async () => wrong.close());
    await expect(wrong.send({ to: "a@example.com", subject: "s", text: "t" })).rejects.toThrow();
    expect(authed.received).toHaveLength(0);
  });

  it("rejects when no server answers", async () => {
    const gone = await startServer();
    const port = gone.port;
    await gone.close();
    const mail = new SmtpMail(`smtp://127.0.0.1:${port}`, "no-reply@photofx.test");
    cleanups.push(async () => mail.close());
    await expect(mail.send({ to: "a@example.com", subject: "s", text: "t" })).rejects.toThrow();
  });
});
