"use client";
import type { useTranslations } from "next-intl";
import type { AuthResult } from "./auth-api";

type T = ReturnType<typeof useTranslations<"auth">>;

/** better-auth's refusals we have words for, in the user's language; `fallback` otherwise. */
export function authErrorText(t: T, error: NonNullable<AuthResult["error"]>, fallback: string): string {
  if (error.status === 429) return t("tooManyRequests");
  switch (error.code) {
    case "PASSWORD_TOO_COMMON":
      return t("passwordTooCommon");
    case "PASSWORD_TOO_SHORT":
      return t("passwordTooShort");
    case "PASSWORD_TOO_LONG":
      return t("passwordTooLong");
    case "ACCOUNT_SUSPENDED":
      return t("accountSuspended");
    case "INVALID_TOKEN":
    case "TOKEN_EXPIRED":
      return t("linkInvalid");
    default:
      return fallback;
  }
}
