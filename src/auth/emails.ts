import { createTranslator } from "next-intl";
import { z } from "zod";
import type { MailMessage, MailPort } from "@/core/ports/mail";
import { isRtl, LOCALE_TAGS, LOCALES, type Locale } from "@/i18n/locales";
import ar from "../../messages/ar/mail.json";
import de from "../../messages/de/mail.json";
import en from "../../messages/en/mail.json";
import es from "../../messages/es/mail.json";
import fr from "../../messages/fr/mail.json";
import it from "../../messages/it/mail.json";
import ja from "../../messages/ja/mail.json";
import ko from "../../messages/ko/mail.json";
import pt from "../../messages/pt/mail.json";
import tw from "../../messages/tw/mail.json";
import vi from "../../messages/vi/mail.json";
import zh from "../../messages/zh/mail.json";

/**
 * The account e-mails (address verification, password reset, e-mail change, "you already
 * have an account"), in the language of the page the request came from, as plain text and
 * a simple HTML alternative in which every value is escaped.
 */

type MailMessages = typeof en;
const MESSAGES: Record<Locale, MailMessages> = { en, ar, de, es, fr, it, ja, ko, pt, tw, vi, zh };

export type AuthMailKind = "verify" | "reset" | "changeEmail" | "existingAccount";

export interface AuthMailInput {
  kind: AuthMailKind;
  to: string;
  locale: Locale;
  /** The page the message's button opens (absolute, on APP_URL). */
  link: string;
  /** How long the link works, in hours (not shown for existingAccount). */
  hours?: number;
  /** changeEmail: the address being replaced. */
  oldEmail?: string;
  /** existingAccount: the forgot-password page. */
  forgotLink?: string;
}

/** A page of the site for a locale: APP_URL, the locale prefix, the path, the query. */
export function pageUrl(
  appUrl: string,
  locale: Locale,
  pathname: string,
  query: Record<string, string> = {},
) {
  const url = new URL(`${appUrl}/${locale}${pathname}`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return url.toString();
}

export function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/** One line of text: no control characters (a value never adds lines of its own). */
// eslint-disable-next-line no-control-regex -- control characters are what it removes
const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").trim();

export function composeAuthMail(input: AuthMailInput): MailMessage {
  if (!(LOCALES as readonly string[]).includes(input.locale))
    throw new Error(`unknown locale ${input.locale}`);
  const t = createTranslator({
    // Plural rules and numbers follow the BCP 47 tag (zh-Hant-TW for "tw").
    locale: LOCALE_TAGS[input.locale] as Locale,
    messages: MESSAGES[input.locale],
    namespace: "mail",
  });
  const k = input.kind;
  const subject = t(`${k}.subject`);
  const intro =
    k === "changeEmail"
      ? t("changeEmail.intro", { oldEmail: oneLine(input.oldEmail ?? "") })
      : t(`${k}.intro`);
  const action = t(`${k}.action`);
  const expires = k !== "existingAccount" && input.hours ? t("expires", { hours: input.hours }) : null;
  const forgot = k === "existingAccount" && input.forgotLink ? t("existingAccount.forgot") : null;
  const ignore = t(`${k}.ignore`);
  const signature = t("signature");

  const text = [
    t("greeting"),
    intro,
    `${action}:\n${input.link}`,
    ...(forgot ? [`${forgot}\n${input.forgotLink}`] : []),
    ...(expires ? [expires] : []),
    ignore,
    `— ${signature}`,
  ].join("\n\n");

  const e = escapeHtml;
  const dir = isRtl(input.locale) ? "rtl" : "ltr";
  const p = (s: string, style = "") => `<p style="margin:0 0 16px${style}">${s}</p>`;
  const html = [
    "<!doctype html>",
    `<html lang="${e(LOCALE_TAGS[input.locale])}" dir="${dir}">`,
    `<head><meta charset="utf-8"><title>${e(subject)}</title></head>`,
    '<body style="margin:0;padding:24px;font-family:system-ui,-apple-system,Segoe UI,sans-serif;font-size:15px;line-height:1.5;color:#18181b;background:#ffffff">',
    '<div style="max-width:560px">',
    p(e(t("greeting"))),
    p(e(intro)),
    p(
      `<a href="${e(input.link)}" style="display:inline-block;padding:10px 18px;border-radius:8px;background:#6d28d9;color:#ffffff;font-weight:600;text-decoration:none">${e(action)}</a>`,
    ),
    p(
      `${e(t("linkFallback"))}<br><a href="${e(input.link)}" style="color:#6d28d9;word-break:break-all">${e(input.link)}</a>`,
      ";font-size:13px;color:#52525b",
    ),
    ...(forgot && input.forgotLink
      ? [
          p(
            `${e(forgot)}<br><a href="${e(input.forgotLink)}" style="color:#6d28d9">${e(input.forgotLink)}</a>`,
          ),
        ]
      : []),
    ...(expires ? [p(e(expires))] : []),
    p(e(ignore), ";color:#52525b"),
    p(`— ${e(signature)}`),
    "</div></body></html>",
  ].join("\n");

  return { to: input.to, subject, text, html };
}

/** The claims of a better-auth e-mail token that tell a sign-up verification from an e-mail change. */
const tokenClaims = z.object({
  email: z.string(),
  updateTo: z.string().optional(),
  requestType: z.string().optional(),
});

/** Reads (never trusts: better-auth verifies it when the link is followed) an e-mail token's payload. */
export function emailTokenClaims(token: string): z.infer<typeof tokenClaims> | null {
  const payload = token.split(".")[1];
  if (!payload || payload.length > 4096) return null;
  try {
    const parsed = tokenClaims.safeParse(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Sends account e-mail in the background: an answer never waits for the mail server, so
 * its time does not tell whether an address has an account, and a slow server does not
 * slow the page. A failure is reported through onError (the log); drain() waits for the
 * messages under way (at shutdown, in tests).
 */
export class AuthMailer {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly mail: MailPort,
    private readonly onError: (err: unknown, kind: AuthMailKind) => void,
  ) {}

  send(input: AuthMailInput): void {
    const p: Promise<void> = (async () => this.mail.send(composeAuthMail(input)))()
      .catch((err: unknown) => this.onError(err, input.kind))
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  async drain(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }
}
