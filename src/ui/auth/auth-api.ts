"use client";
import { LOCALE_HEADER } from "@/auth/locale-header";

/**
 * Calls better-auth's HTTP endpoints directly. Its browser client would add ~11 kB
 * gzipped to every page for a few POSTs. Calls that may send an e-mail carry the page's
 * locale (the message is written in it).
 */
export interface AuthResult<T = Record<string, unknown>> {
  /** The answer's body when it succeeded. */
  data: T | null;
  error: { message: string; code?: string; status?: number } | null;
}

async function call<T>(
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  locale?: string,
): Promise<AuthResult<T>> {
  try {
    const headers: Record<string, string> = {};
    if (method === "POST") headers["content-type"] = "application/json";
    if (locale) headers[LOCALE_HEADER] = locale;
    const res = await fetch(`/api/auth/${path}`, {
      method,
      credentials: "same-origin",
      cache: "no-store",
      headers,
      ...(method === "POST" ? { body: JSON.stringify(body ?? {}) } : {}),
    });
    const answer: unknown = await res.json().catch(() => null);
    if (res.ok) return { data: answer as T, error: null };
    const data = (answer && typeof answer === "object" ? answer : {}) as Record<string, unknown>;
    return {
      data: null,
      error: {
        message: typeof data.message === "string" ? data.message : res.statusText,
        code: typeof data.code === "string" ? data.code : undefined,
        status: res.status,
      },
    };
  } catch (err) {
    return { data: null, error: { message: err instanceof Error ? err.message : "Network error" } };
  }
}

const post = <T = Record<string, unknown>>(path: string, body: unknown, locale?: string) =>
  call<T>("POST", path, body, locale);

export const signInEmail = (email: string, password: string, locale?: string) =>
  post("sign-in/email", { email, password }, locale);
/** `token` is null when no session was opened: the address must be verified first. */
export const signUpEmail = (email: string, password: string, name: string, locale?: string) =>
  post<{ token: string | null }>("sign-up/email", { email, password, name }, locale);
export const signOut = () => post("sign-out", {});
export const sendVerificationEmail = (email: string, locale: string) =>
  post("send-verification-email", { email }, locale);
export const requestPasswordReset = (email: string, locale: string) =>
  post("request-password-reset", { email }, locale);
export const resetPassword = (token: string, newPassword: string) =>
  post("reset-password", { token, newPassword });
/** Other sessions of the account end too (this one is renewed). */
export const changePassword = (currentPassword: string, newPassword: string) =>
  post("change-password", { currentPassword, newPassword, revokeOtherSessions: true });
export const changeEmail = (newEmail: string, locale: string) => post("change-email", { newEmail }, locale);
export const revokeOtherSessions = () => post("revoke-other-sessions", {});
/** Confirms an e-mail token; `user` is set when it was an e-mail change. */
export const verifyEmail = (token: string, locale: string) =>
  call<{ status: boolean; user: { email: string } | null }>(
    "GET",
    `verify-email?token=${encodeURIComponent(token)}`,
    undefined,
    locale,
  );
export const getSession = () =>
  call<{ user: { email: string; emailVerified: boolean } } | null>("GET", "get-session");
