import type account from "../../messages/en/account.json";
import type auth from "../../messages/en/auth.json";
import type botcheck from "../../messages/en/botcheck.json";
import type checkout from "../../messages/en/checkout.json";
import type common from "../../messages/en/common.json";
import type effect from "../../messages/en/effect.json";
import type errors from "../../messages/en/errors.json";
import type home from "../../messages/en/home.json";
import type history from "../../messages/en/history.json";
import type list from "../../messages/en/list.json";
import type mail from "../../messages/en/mail.json";
import type modals from "../../messages/en/modals.json";
import type pricing from "../../messages/en/pricing.json";
import type privacy from "../../messages/en/privacy.json";
import type results from "../../messages/en/results.json";
import type subscription from "../../messages/en/subscription.json";
import type upload from "../../messages/en/upload.json";
import type front from "../../messages/en/front.json";
import type legal from "../../messages/en/legal.json";
import type admin from "../../messages/en/admin.json";
import type { Locale } from "./locales";

/** Message files per locale, one per feature, so features are edited independently. */
export const NAMESPACES = [
  "common",
  "home",
  "list",
  "effect",
  "upload",
  "results",
  "modals",
  "auth",
  "account",
  "pricing",
  "checkout",
  "botcheck",
  "errors",
  "mail",
  "history",
  "privacy",
  "subscription",
  "front",
  "legal",
  "admin",
] as const;

/** English defines the message type. */
export type Messages = typeof common &
  typeof home &
  typeof list &
  typeof effect &
  typeof upload &
  typeof results &
  typeof modals &
  typeof auth &
  typeof account &
  typeof pricing &
  typeof checkout &
  typeof botcheck &
  typeof errors &
  typeof mail &
  typeof history &
  typeof privacy &
  typeof subscription &
  typeof front &
  typeof legal &
  typeof admin;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Deep merge: keys missing from `over` keep the base text. */
export function mergeMessages(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = isObject(v) && isObject(base[k]) ? mergeMessages(base[k] as Record<string, unknown>, v) : v;
  }
  return out;
}

async function loadLocale(locale: Locale): Promise<Record<string, unknown>> {
  let all: Record<string, unknown> = {};
  for (const ns of NAMESPACES) {
    try {
      const file = (await import(`../../messages/${locale}/${ns}.json`)).default as Record<string, unknown>;
      all = { ...all, ...file };
    } catch {
      // A missing file falls back to English below; the i18n test fails on it.
    }
  }
  return all;
}

/**
 * A locale's messages over the English ones. A test fails on any key missing from any
 * locale, so the English fallback only shows during development.
 */
export async function loadMessages(locale: Locale): Promise<Messages> {
  const en = await loadLocale("en");
  if (locale === "en") return en as Messages;
  return mergeMessages(en, await loadLocale(locale)) as Messages;
}
