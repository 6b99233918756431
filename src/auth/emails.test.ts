import { describe, expect, it } from "vitest";
import type { MailMessage } from "@/core/ports/mail";
import { LOCALES } from "@/i18n/locales";
import { AuthMailer, composeAuthMail, emailTokenClaims, escapeHtml, pageUrl } from "./emails";

const link = "https://photofx.test/de/verify-email?token=abc.def-ghi";

describe("account e-mails", () => {
  it("are written in the request's language, with the link in the text and the HTML", () => {
    const de = composeAuthMail({ kind: "verify", to: "a@example.com", locale: "de", link, hours: 24 });
    expect(de.subject).toBe("Bestätige deine E-Mail-Adresse");
    expect(de.text).toContain(link);
    expect(de.text).toContain("24 Stunden");
    expect(de.html).toContain(`href="${link}"`);
    expect(de.html).toContain('lang="de" dir="ltr"');
    const ar = composeAuthMail({ kind: "reset", to: "a@example.com", locale: "ar", link, hours: 1 });
    expect(ar.html).toContain('dir="rtl"');
    expect(ar.text).toContain("ساعة واحدة");
    const en = composeAuthMail({ kind: "reset", to: "a@example.com", locale: "en", link, hours: 1 });
    expect(en.subject).toBe("Reset your password");
    expect(en.text).toContain("valid for 1 hour.");
  });

  it("exist in every locale for every kind, each different from English", () => {
    for (const kind of ["verify", "reset", "changeEmail", "existingAccount"] as const) {
      const en = composeAuthMail({
        kind,
        to: "a@example.com",
        locale: "en",
        link,
        hours: 24,
        oldEmail: "o@x.test",
        forgotLink: link,
      });
      for (const locale of LOCALES.filter((l) => l !== "en")) {
        const m = composeAuthMail({
          kind,
          to: "a@example.com",
          locale,
          link,
          hours: 24,
          oldEmail: "o@x.test",
          forgotLink: link,
        });
        expect(m.subject, `${locale} ${kind}`).not.toBe(en.subject);
        expect(m.text).toContain(link);
        if (kind === "changeEmail") expect(m.text).toContain("o@x.test");
      }
    }
  });

  it("escape every value in the HTML and keep values on one line in the text", () => {
    const hostile = 'x"><script>alert(1)</script>@evil.test\n\nClick https://evil.test';
    const m = composeAuthMail({
      kind: "changeEmail",
      to: "a@example.com",
      locale: "en",
      link: 'https://photofx.test/en/verify-email?token=a"b<c>',
      hours: 24,
      oldEmail: hostile,
    });
    expect(m.html).not.toContain("<script>");
    expect(m.html).toContain("&lt;script&gt;");
    expect(m.html).toContain('token=a&quot;b&lt;c&gt;"');
    expect(m.text).not.toContain("\n\nClick");
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  });

  it("link to APP_URL with the locale prefix", () => {
    expect(pageUrl("https://photofx.test", "tw", "/reset-password", { token: "t o&k" })).toBe(
      "https://photofx.test/tw/reset-password?token=t+o%26k",
    );
    expect(pageUrl("http://localhost:3000", "en", "/sign-in")).toBe("http://localhost:3000/en/sign-in");
  });

  it("tell an e-mail change from a sign-up verification by the token's claims", () => {
    const enc = (o: object) => `h.${Buffer.from(JSON.stringify(o)).toString("base64url")}.s`;
    expect(
      emailTokenClaims(
        enc({ email: "a@x.test", updateTo: "b@x.test", requestType: "change-email-verification" }),
      ),
    ).toMatchObject({ email: "a@x.test", updateTo: "b@x.test", requestType: "change-email-verification" });
    expect(emailTokenClaims(enc({ email: "a@x.test" }))).toEqual({ email: "a@x.test" });
    expect(emailTokenClaims("not-a-jwt")).toBeNull();
    expect(emailTokenClaims("a.!!!.b")).toBeNull();
  });

  it("send in the background, report failures, and drain", async () => {
    const sent: MailMessage[] = [];
    const errors: string[] = [];
    let fail = true;
    const mailer = new AuthMailer(
      {
        async send(m) {
          await new Promise((r) => setTimeout(r, 20));
          if (fail) throw new Error("smtp down");
          sent.push(m);
        },
      },
      (err, kind) => errors.push(`${kind}: ${String(err)}`),
    );
    mailer.send({ kind: "verify", to: "a@example.com", locale: "en", link, hours: 24 });
    expect(sent).toHaveLength(0); // not awaited by the caller
    await mailer.drain();
    expect(errors).toEqual(["verify: Error: smtp down"]);
    fail = false;
    mailer.send({ kind: "reset", to: "b@example.com", locale: "fr", link, hours: 1 });
    await mailer.drain();
    expect(sent.map((m) => m.to)).toEqual(["b@example.com"]);
  });
});
