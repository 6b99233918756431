import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthMiddleware } from "better-auth/api";

/**
 * Refuses the most common passwords wherever a password is chosen (sign-up, password change,
 * password reset). The list is zxcvbn's: about 49 000 passwords ranked by how often they
 * appeared in public breach corpora (@zxcvbn-ts/language-common, MIT). Only the entries a
 * password policy would otherwise accept (8 to 128 characters) are kept in memory, loaded
 * on first use so a process that never signs anyone up does not hold them.
 */

export const PASSWORD_TOO_COMMON = {
  code: "PASSWORD_TOO_COMMON",
  message: "This password is too common and easy to guess. Please choose a different one.",
} as const;

/** better-auth endpoints that set a password, and the body field that carries it. */
const PASSWORD_FIELDS: Record<string, string> = {
  "/sign-up/email": "password",
  "/change-password": "newPassword",
  "/reset-password": "newPassword",
};

let listPromise: Promise<Set<string>> | undefined;

function commonList(): Promise<Set<string>> {
  listPromise ??= import("@zxcvbn-ts/language-common").then((m) => {
    // A CommonJS package: its exports are named, or under `default`, depending on the loader.
    const dictionary = m.dictionary ?? (m as unknown as { default: typeof m }).default.dictionary;
    const set = new Set<string>();
    for (const p of dictionary.passwords) {
      if (p.length >= 8 && p.length <= 128) set.add(p.toLowerCase());
    }
    return set;
  });
  return listPromise;
}

/**
 * Whether a password is on the list. Case does not help ("PASSWORD1" is "password1"), nor
 * does whitespace around it.
 */
export async function isCommonPassword(password: string): Promise<boolean> {
  const candidate = password.trim().toLowerCase();
  if (candidate.length > 128) return false;
  return (await commonList()).has(candidate);
}

/** The better-auth plugin: a 400 with code PASSWORD_TOO_COMMON before the password is stored. */
export function commonPasswords(): BetterAuthPlugin {
  return {
    id: "common-passwords",
    hooks: {
      before: [
        {
          matcher: (ctx) => ctx.path !== undefined && ctx.path in PASSWORD_FIELDS,
          handler: createAuthMiddleware(async (ctx) => {
            const field = PASSWORD_FIELDS[ctx.path ?? ""];
            const password = field ? (ctx.body as Record<string, unknown> | undefined)?.[field] : undefined;
            if (typeof password === "string" && (await isCommonPassword(password))) {
              throw APIError.from("BAD_REQUEST", PASSWORD_TOO_COMMON);
            }
          }),
        },
      ],
    },
    $ERROR_CODES: { PASSWORD_TOO_COMMON },
  };
}
