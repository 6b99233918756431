import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxFiles, readOutboxFile, type OutboxEntry } from "@/adapters/mail/outbox-reader";
import { LOCALE_HEADER } from "@/auth/request-locale";
import { creditEntry } from "@/core/schema";
import { signUp, startTestServer, type TestServer } from "./harness";

/**
 * Account e-mail through the embedded outbox (.eml files in the test's DATA_DIR/mail): address
 * verification at sign-up (and the credits it unlocks), no account enumeration, password
 * reset, e-mail change and the end of other sessions.
 */

const PASSWORD = "correct-horse-battery";

interface Answer {
  status: number;
  body: Record<string, unknown>;
  cookie: string;
  setCookie: boolean;
}

function cookieOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .filter((c) => !/=$/.test(c!))
    .join("; ");
}

async function call(
  server: TestServer,
  method: "GET" | "POST",
  pathname: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${server.url}${pathname}`, {
    method,
    headers: {
      origin: server.services.env.appUrl,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    redirect: "manual",
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    cookie: cookieOf(res),
    setCookie: res.headers.getSetCookie().length > 0,
  };
}

const signUpRaw = (
  server: TestServer,
  email: string,
  password = PASSWORD,
  headers: Record<string, string> = {},
) => call(server, "POST", "/api/auth/sign-up/email", { email, password, name: "Mail Test" }, headers);
const signIn = (server: TestServer, email: string, password = PASSWORD) =>
  call(server, "POST", "/api/auth/sign-in/email", { email, password });
/** GET with a session cookie: 200 signed in, 401 not (the cached session path). */
const credits = async (server: TestServer, cookie: string) => {
  const res = await fetch(`${server.url}/api/credits`, { headers: { cookie } });
  return { status: res.status, balance: res.ok ? ((await res.json()) as { balance: number }).balance : null };
};
const me = async (server: TestServer, cookie: string) =>
  (
    (await (await fetch(`${server.url}/api/me`, { headers: { cookie } })).json()) as {
      user: { email: string } | null;
    }
  ).user;
const grants = async (server: TestServer, cookie: string) => {
  const res = await fetch(`${server.url}/api/credits/ledger`, { headers: { cookie } });
  const { entries } = (await res.json()) as { entries: Array<{ kind: string; amount: number }> };
  return entries.filter((e) => e.kind === "grant");
};

/** The ledger rows of a user, read from the database (an account without a session). */
const ledgerOf = (server: TestServer, userId: string) =>
  server.services.db.select().from(creditEntry).where(eq(creditEntry.userId, userId));

const mailDir = (server: TestServer) => path.join(server.dataDir, "mail");

/** Every outbox message to an address, oldest first. */
async function mailTo(server: TestServer, to: string): Promise<OutboxEntry[]> {
  const dir = mailDir(server);
  const all = await Promise.all((await outboxFiles(dir)).map((f) => readOutboxFile(dir, f)));
  return all.filter((m) => m.to === to);
}

/** Waits for the `count`-th message to an address (mail is sent in the background). */
async function waitForMail(
  server: TestServer,
  to: string,
  count = 1,
  timeoutMs = 5000,
): Promise<OutboxEntry> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const got = await mailTo(server, to);
    if (got.length >= count) return got[count - 1]!;
    if (Date.now() > until)
      throw new Error(`no mail #${count} to ${to} after ${timeoutMs} ms (have ${got.length})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The link of a message (its first URL on APP_URL) and the token in it. */
function linkOf(server: TestServer, mail: OutboxEntry): { url: URL; token: string } {
  const match = new RegExp(
    `${server.services.env.appUrl.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/[^\\s]+`,
  ).exec(mail.text);
  if (!match) throw new Error(`no link in: ${mail.text}`);
  const url = new URL(match[0]);
  return { url, token: url.searchParams.get("token") ?? "" };
}

/** What the /verify-email page does with a link's token. */
const followVerifyLink = (server: TestServer, token: string, cookie?: string) =>
  call(
    server,
    "GET",
    `/api/auth/verify-email?token=${encodeURIComponent(token)}`,
    undefined,
    cookie ? { cookie } : {},
  );

let n = 0;
const address = (tag: string) => `${tag}-${Date.now()}-${++n}@example.com`;

describe("with EMAIL_VERIFICATION=required (the outbox, no SMTP server)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { EMAIL_VERIFICATION: "required" } });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("defaults SIGNUP_CREDITS_ON to verified", () => {
    expect(server.services.env.emailVerification).toBe("required");
    expect(server.services.env.signupCreditsOn).toBe("verified");
  });

  it("the verification link verifies the address, signs in and grants the sign-up credits once", async () => {
    const email = address("verify");
    const up = await signUpRaw(server, email, PASSWORD, { [LOCALE_HEADER]: "de" });
    expect(up.status).toBe(200);
    expect(up.body.token).toBeNull();
    expect(up.setCookie).toBe(false);

    // The message is in the page's language and links to APP_URL with the locale prefix.
    const mail = await waitForMail(server, email);
    expect(mail.subject).toBe("Bestätige deine E-Mail-Adresse");
    const { url, token } = linkOf(server, mail);
    expect(`${url.origin}${url.pathname}`).toBe(`${server.services.env.appUrl}/de/verify-email`);
    expect(mail.html).toContain("verify-email?token=");

    // Not verified: sign-in is refused with a code the page translates, and no credits yet.
    const early = await signIn(server, email);
    expect(early.status).toBe(403);
    expect(early.body.code).toBe("EMAIL_NOT_VERIFIED");
    expect(early.setCookie).toBe(false);
    const userId = (up.body.user as { id: string }).id;
    expect(await ledgerOf(server, userId)).toEqual([]);
    // A wrong password says nothing about verification.
    expect((await signIn(server, email, "wrong-password-123")).status).toBe(401);

    const verified = await followVerifyLink(server, token);
    expect(verified.status).toBe(200);
    expect(verified.cookie).toContain("session_token");
    expect(await credits(server, verified.cookie)).toEqual({ status: 200, balance: 10 });

    // The link followed again, and a second sign-in: still one grant.
    expect((await followVerifyLink(server, token)).status).toBe(200);
    const later = await signIn(server, email);
    expect(later.status).toBe(200);
    expect(await credits(server, later.cookie)).toEqual({ status: 200, balance: 10 });
    expect(await grants(server, later.cookie)).toEqual([expect.objectContaining({ amount: 10 })]);
    expect(await ledgerOf(server, userId)).toHaveLength(1);
  });

  it("a broken or forged link verifies nothing", async () => {
    const email = address("forged");
    await signUpRaw(server, email);
    const { token } = linkOf(server, await waitForMail(server, email));
    const [h, p] = token.split(".");
    const forged = `${h}.${p}.${"A".repeat(43)}`;
    expect((await followVerifyLink(server, forged)).status).toBe(401);
    expect((await followVerifyLink(server, "nonsense")).status).toBe(401);
    expect((await signIn(server, email)).status).toBe(403);
  });

  it("resends the link on request, answering the same for unknown addresses", async () => {
    const email = address("resend");
    await signUpRaw(server, email);
    await waitForMail(server, email);
    const resend = await call(
      server,
      "POST",
      "/api/auth/send-verification-email",
      { email },
      { "accept-language": "ja" },
    );
    const unknown = await call(server, "POST", "/api/auth/send-verification-email", {
      email: address("nobody"),
    });
    expect(resend.status).toBe(200);
    expect(unknown).toEqual(resend);
    const second = await waitForMail(server, email, 2);
    expect(second.subject).toBe("メールアドレスの確認");
    expect((await followVerifyLink(server, linkOf(server, second).token)).status).toBe(200);
    expect((await signIn(server, email)).status).toBe(200);
  });

  it("a sign-up with a taken address answers exactly as a new one, and tells the owner by mail", async () => {
    const taken = address("taken");
    await signUpRaw(server, taken);
    await waitForMail(server, taken);

    const fresh = await signUpRaw(server, address("fresh"), "another-pass-phrase");
    const dup = await signUpRaw(server, taken, "another-pass-phrase");
    expect(dup.status).toBe(fresh.status);
    expect(dup.setCookie).toBe(fresh.setCookie);
    expect(Object.keys(dup.body).sort()).toEqual(Object.keys(fresh.body).sort());
    expect(Object.keys(dup.body.user as object).sort()).toEqual(
      Object.keys(fresh.body.user as object).sort(),
    );
    expect(dup.body.token).toBeNull();
    expect((dup.body.user as { emailVerified: boolean }).emailVerified).toBe(false);

    // The owner hears about it; the account keeps its password.
    const notice = await waitForMail(server, taken, 2);
    expect(notice.subject).toBe("You already have a photofx account");
    expect(notice.text).toContain(`${server.services.env.appUrl}/en/forgot-password`);
    expect((await signIn(server, taken, "another-pass-phrase")).status).toBe(401);
  });

  it("a password reset through the mailed link changes the password and ends every session", async () => {
    const email = address("reset");
    await signUpRaw(server, email);
    await followVerifyLink(server, linkOf(server, await waitForMail(server, email)).token);
    const a = await signIn(server, email);
    const b = await signIn(server, email);
    // Both sessions cached by the API's session cache.
    expect((await credits(server, a.cookie)).status).toBe(200);
    expect((await credits(server, b.cookie)).status).toBe(200);

    const asked = await call(
      server,
      "POST",
      "/api/auth/request-password-reset",
      { email },
      { "accept-language": "fr-CA,fr;q=0.9" },
    );
    const unknown = await call(server, "POST", "/api/auth/request-password-reset", {
      email: address("ghost"),
    });
    expect(asked.status).toBe(200);
    expect(unknown).toEqual(asked);

    const mail = await waitForMail(server, email, 2);
    expect(mail.subject).toBe("Réinitialisez votre mot de passe");
    const { url, token } = linkOf(server, mail);
    expect(url.pathname).toBe("/fr/reset-password");

    // The policy applies: length and the common-password list.
    const short = await call(server, "POST", "/api/auth/reset-password", { token, newPassword: "short" });
    expect(short.body.code).toBe("PASSWORD_TOO_SHORT");
    const common = await call(server, "POST", "/api/auth/reset-password", {
      token,
      newPassword: "password1",
    });
    expect(common.body.code).toBe("PASSWORD_TOO_COMMON");

    const done = await call(server, "POST", "/api/auth/reset-password", {
      token,
      newPassword: "a-brand-new-phrase",
    });
    expect(done.status).toBe(200);
    // Every session ends at once, cached or not.
    expect((await credits(server, a.cookie)).status).toBe(401);
    expect((await credits(server, b.cookie)).status).toBe(401);
    expect((await signIn(server, email)).status).toBe(401);
    expect((await signIn(server, email, "a-brand-new-phrase")).status).toBe(200);
    // The link works once.
    const again = await call(server, "POST", "/api/auth/reset-password", {
      token,
      newPassword: "yet-another-phrase",
    });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe("INVALID_TOKEN");
  });
});

describe("account security with the defaults (no SMTP: verification off)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("signs people up at once with their credits and sends no mail", async () => {
    expect(server.services.env.emailVerification).toBe("off");
    expect(server.services.env.signupCreditsOn).toBe("signup");
    const user = await signUp(server);
    expect(await credits(server, user.cookie)).toEqual({ status: 200, balance: 10 });
    await new Promise((r) => setTimeout(r, 300)); // mail goes out in the background
    expect(await mailTo(server, user.email)).toEqual([]);
  });

  it("changes the e-mail address only through the link sent to the new address", async () => {
    const user = await signUp(server);
    const other = await signUp(server);
    const newEmail = address("new");
    const asked = await call(
      server,
      "POST",
      "/api/auth/change-email",
      { newEmail },
      { cookie: user.cookie, [LOCALE_HEADER]: "es" },
    );
    expect(asked.status).toBe(200);
    // Nothing changes yet.
    expect((await me(server, user.cookie))?.email).toBe(user.email);
    expect((await signIn(server, newEmail)).status).toBe(401);

    const mail = await waitForMail(server, newEmail);
    expect(mail.subject).toBe("Confirma tu nueva dirección de correo electrónico");
    expect(mail.text).toContain(user.email);
    const { token } = linkOf(server, mail);
    // Someone else's session cannot use it.
    expect((await followVerifyLink(server, token, other.cookie)).status).toBe(401);
    expect((await me(server, user.cookie))?.email).toBe(user.email);

    const followed = await followVerifyLink(server, token);
    expect(followed.status).toBe(200);
    // The cached session shows the new address at once.
    expect((await me(server, user.cookie))?.email).toBe(newEmail);
    expect((await signIn(server, newEmail)).status).toBe(200);
    expect((await signIn(server, user.email)).status).toBe(401);
  });

  it("asking for a taken address answers the same and sends nothing", async () => {
    const user = await signUp(server);
    const owner = await signUp(server);
    const taken = await call(
      server,
      "POST",
      "/api/auth/change-email",
      { newEmail: owner.email },
      { cookie: user.cookie },
    );
    const free = await call(
      server,
      "POST",
      "/api/auth/change-email",
      { newEmail: address("free") },
      { cookie: user.cookie },
    );
    expect(taken).toEqual(free);
    await new Promise((r) => setTimeout(r, 300)); // mail goes out in the background
    expect(await mailTo(server, owner.email)).toEqual([]);
    expect((await me(server, user.cookie))?.email).toBe(user.email);
  });

  it("changing the password needs the current one and ends the other sessions", async () => {
    const user = await signUp(server);
    const other = await signIn(server, user.email);
    expect((await credits(server, other.cookie)).status).toBe(200);
    const wrong = await call(
      server,
      "POST",
      "/api/auth/change-password",
      { currentPassword: "not-my-password", newPassword: "fresh-pass-phrase", revokeOtherSessions: true },
      { cookie: user.cookie },
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe("INVALID_PASSWORD");
    const common = await call(
      server,
      "POST",
      "/api/auth/change-password",
      { currentPassword: PASSWORD, newPassword: "password1", revokeOtherSessions: true },
      { cookie: user.cookie },
    );
    expect(common.body.code).toBe("PASSWORD_TOO_COMMON");
    const ok = await call(
      server,
      "POST",
      "/api/auth/change-password",
      { currentPassword: PASSWORD, newPassword: "fresh-pass-phrase", revokeOtherSessions: true },
      { cookie: user.cookie },
    );
    expect(ok.status).toBe(200);
    expect((await credits(server, other.cookie)).status).toBe(401);
    // This browser continues with the renewed session.
    expect((await credits(server, ok.cookie)).status).toBe(200);
    expect((await signIn(server, user.email, "fresh-pass-phrase")).status).toBe(200);
  });

  it("'sign out everywhere' ends every other session at once and keeps this one", async () => {
    const user = await signUp(server);
    const phone = await signIn(server, user.email);
    const laptop = await signIn(server, user.email);
    for (const c of [user.cookie, phone.cookie, laptop.cookie])
      expect((await credits(server, c)).status).toBe(200);
    const res = await call(server, "POST", "/api/auth/revoke-other-sessions", {}, { cookie: user.cookie });
    expect(res.status).toBe(200);
    expect((await credits(server, phone.cookie)).status).toBe(401);
    expect((await credits(server, laptop.cookie)).status).toBe(401);
    expect((await credits(server, user.cookie)).status).toBe(200);
  });
});

describe("with SIGNUP_CREDITS_ON=verified and verification off", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { SIGNUP_CREDITS_ON: "verified" } });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("lets the account in at once, and grants the credits once the mailed link is followed", async () => {
    const user = await signUp(server);
    expect(await credits(server, user.cookie)).toEqual({ status: 200, balance: 0 });
    const mail = await waitForMail(server, user.email);
    const { token } = linkOf(server, mail);
    expect((await followVerifyLink(server, token, user.cookie)).status).toBe(200);
    expect(await credits(server, user.cookie)).toEqual({ status: 200, balance: 10 });
    expect((await followVerifyLink(server, token, user.cookie)).status).toBe(200);
    expect(await grants(server, user.cookie)).toHaveLength(1);
  });
});
