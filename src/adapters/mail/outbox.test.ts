import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OutboxMail, outboxFileName } from "./outbox";
import { listOutbox, outboxFiles, readOutboxFile } from "./outbox-reader";

let dataDir: string;
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "photofx-outbox-"));
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe("the outbox mail adapter", () => {
  it("writes each message as an RFC 822 file under DATA_DIR/mail that decodes to what was sent", async () => {
    const outbox = new OutboxMail(dataDir, "photofx <no-reply@photofx.test>");
    await outbox.send({
      to: "ana@example.com",
      subject: "Bestätige deine E-Mail-Adresse",
      text: "Hallo,\n\nhttps://photofx.test/de/verify-email?token=a.b-c_d=e\n",
      html: "<p>Hallo</p>",
    });
    const files = await outboxFiles(path.join(dataDir, "mail"));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{8}T\d{9}Z-\d{6}-[0-9a-f]{6}\.eml$/);
    const raw = fs.readFileSync(path.join(dataDir, "mail", files[0]!), "utf8");
    // A real MIME message with CRLF line ends, its headers first.
    expect(raw).toMatch(/^[\s\S]*\r\nMIME-Version: 1\.0\r\n/);
    expect(raw).toContain("To: ana@example.com");
    expect(raw).toContain("Content-Type: multipart/alternative");
    const entry = await readOutboxFile(path.join(dataDir, "mail"), files[0]!);
    expect(entry.to).toBe("ana@example.com");
    expect(entry.from).toContain("no-reply@photofx.test");
    expect(entry.subject).toBe("Bestätige deine E-Mail-Adresse");
    expect(entry.text).toContain("https://photofx.test/de/verify-email?token=a.b-c_d=e");
    expect(entry.html).toContain("<p>Hallo</p>");
    expect(entry.date).toBeInstanceOf(Date);
    // Sign-in links inside: only the owner may read them.
    if (process.platform !== "win32") {
      expect(fs.statSync(path.join(dataDir, "mail", files[0]!)).mode & 0o077).toBe(0);
    }
  });

  it("names files so that they sort by time, and leaves no temporary file behind", async () => {
    const outbox = new OutboxMail(dataDir, "no-reply@photofx.test");
    for (let i = 0; i < 5; i++) {
      await outbox.send({ to: `u${i}@example.com`, subject: `message ${i}`, text: `body ${i}` });
    }
    const dir = path.join(dataDir, "mail");
    expect(fs.readdirSync(dir).filter((f) => f.startsWith("."))).toEqual([]);
    const listed = await listOutbox(dir);
    expect(listed.map((m) => m.subject)).toEqual([4, 3, 2, 1, 0].map((i) => `message ${i}`));
    expect(outboxFileName(new Date("2026-01-02T03:04:05.006Z"), 7)).toMatch(
      /^20260102T030405006Z-000007-[0-9a-f]{6}\.eml$/,
    );
    expect(
      outboxFileName(new Date("2026-01-02T03:04:05.006Z"), 1) <
        outboxFileName(new Date("2026-01-02T03:04:05.007Z"), 0),
    ).toBe(true);
  });

  it("ignores a file still being written and an empty or missing folder", async () => {
    expect(await listOutbox(path.join(dataDir, "mail"))).toEqual([]);
    fs.mkdirSync(path.join(dataDir, "mail"));
    fs.writeFileSync(path.join(dataDir, "mail", ".20260101T000000000Z-000001-abcdef.eml.tmp"), "partial");
    expect(await outboxFiles(path.join(dataDir, "mail"))).toEqual([]);
  });
});
