import { APIError } from "better-auth/api";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import type { Db } from "@/core/db";
import * as schema from "@/core/schema";
import type { Env } from "@/config/env";
import { commonPasswords } from "./common-passwords";
import { emailTokenClaims, pageUrl, type AuthMailer } from "./emails";
import { requestLocale } from "./request-locale";

export interface AuthOptions {
  db: Db;
  env: Env;
  secret: string;
  /**
   * Grants an account its starting credits (idempotent: one ledger entry per account). Called
   * at sign-up, or once the address is verified when SIGNUP_CREDITS_ON is `verified` (an
   * account created already verified, through Google or GitHub, gets them at once).
   */
  grantSignupCredits(userId: string): Promise<void>;
  /** Sends the account e-mails (verification, password reset, e-mail change) in the background. */
  mailer: AuthMailer;
  /** Called when a user's record changes (a new e-mail address...): cached sessions are reloaded. */
  onUserChanged?(userId: string): Promise<void>;
  /** Called when sessions end before their time (sign-out, revoked, account deleted): cached sessions are dropped. */
  onSessionsEnded?(ended: { sessionIds?: string[]; userIds?: string[] }): Promise<void>;
  /** Whether an operator suspended the account: no session is created for it (ACCOUNT_SUSPENDED). */
  isSuspended?(userId: string): Promise<boolean>;
  /** After a sign-in or a verified address: ADMIN_EMAILS grants the admin role (src/core/admin/roles.ts). */
  syncRole?(userId: string): Promise<void>;
}

/** The refusal of a suspended account's sign-in (the sign-in page translates the code). */
export const ACCOUNT_SUSPENDED = {
  code: "ACCOUNT_SUSPENDED",
  message: "This account has been suspended. Please contact support.",
} as const;

/**
 * better-auth: email + password always; Google and GitHub when their keys are set.
 * Served by the Hono app under /api/auth/*.
 */
export function createAuth(opts: AuthOptions) {
  const { env } = opts;
  const socialProviders: Record<string, { clientId: string; clientSecret: string }> = {};
  if (env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET) {
    socialProviders.google = { clientId: env.GOOGLE_CLIENT_ID, clientSecret: env.GOOGLE_CLIENT_SECRET };
  }
  if (env.GITHUB_CLIENT_ID && env.GITHUB_CLIENT_SECRET) {
    socialProviders.github = { clientId: env.GITHUB_CLIENT_ID, clientSecret: env.GITHUB_CLIENT_SECRET };
  }
  const verificationRequired = env.emailVerification === "required";
  const creditsOnVerified = env.signupCreditsOn === "verified";
  const localeOf = (request: Request | undefined) => requestLocale(request?.headers);
  return betterAuth({
    appName: "photofx",
    baseURL: env.appUrl,
    basePath: "/api/auth",
    secret: opts.secret,
    trustedOrigins: [env.appUrl],
    database: drizzleAdapter(opts.db, {
      provider: "pg",
      schema: {
        user: schema.user,
        session: schema.session,
        account: schema.account,
        verification: schema.verification,
      },
    }),
    emailAndPassword: {
      enabled: true,
      minPasswordLength: 8,
      maxPasswordLength: 128,
      autoSignIn: true,
      // Required: no session before the address is verified (sign-in answers 403
      // EMAIL_NOT_VERIFIED), and sign-up answers the same for a new and a taken address.
      requireEmailVerification: verificationRequired,
      resetPasswordTokenExpiresIn: RESET_TTL_SECONDS,
      // A password reset ends every session of the account (hooks below: caches drop them).
      revokeSessionsOnPasswordReset: true,
      sendResetPassword: async ({ user, token }, request) => {
        const locale = localeOf(request);
        opts.mailer.send({
          kind: "reset",
          to: user.email,
          locale,
          link: pageUrl(env.appUrl, locale, "/reset-password", { token }),
          hours: RESET_TTL_SECONDS / 3600,
        });
      },
      // Sign-up with a taken address (verification required): its owner hears of it, the caller does not.
      onExistingUserSignUp: async ({ user }, request) => {
        const locale = localeOf(request);
        opts.mailer.send({
          kind: "existingAccount",
          to: user.email,
          locale,
          link: pageUrl(env.appUrl, locale, "/sign-in"),
          forgotLink: pageUrl(env.appUrl, locale, "/forgot-password"),
        });
      },
    },
    emailVerification: {
      // With credits on verification but verification off, the link still goes out at sign-up.
      sendOnSignUp: verificationRequired || creditsOnVerified,
      autoSignInAfterVerification: true,
      expiresIn: VERIFY_TTL_SECONDS,
      // Sign-up verification and the new address of an e-mail change both come here; the
      // token says which. The link opens our page, which confirms through /api/auth/verify-email.
      sendVerificationEmail: async ({ user, token }, request) => {
        const locale = localeOf(request);
        const claims = emailTokenClaims(token);
        const change = claims?.requestType === "change-email-verification" && claims.updateTo;
        opts.mailer.send({
          kind: change ? "changeEmail" : "verify",
          to: user.email,
          locale,
          link: pageUrl(env.appUrl, locale, "/verify-email", { token }),
          hours: VERIFY_TTL_SECONDS / 3600,
          ...(change ? { oldEmail: claims.email } : {}),
        });
      },
      afterEmailVerification: async (user) => {
        if (creditsOnVerified) await opts.grantSignupCredits(user.id);
        await opts.syncRole?.(user.id);
      },
    },
    user: {
      // A new address takes effect only through the link sent to it.
      changeEmail: { enabled: true },
    },
    socialProviders,
    // The most common passwords are refused at sign-up, change and reset (PASSWORD_TOO_COMMON).
    plugins: [commonPasswords()],
    // Unset: better-auth's default (on in production only).
    ...(env.AUTH_RATE_LIMIT === undefined ? {} : { rateLimit: { enabled: env.AUTH_RATE_LIMIT } }),
    session: {
      expiresIn: 60 * 60 * 24 * 30,
      updateAge: 60 * 60 * 24,
    },
    advanced: {
      useSecureCookies: env.appUrl.startsWith("https://"),
      // The client's address is ours to decide (the socket, or X-Forwarded-For only behind a
      // proxy TRUST_PROXY names): the API sets this header on every auth request and drops any
      // the caller sent. better-auth's default read X-Forwarded-For from anyone, so a new
      // value per request escaped the sign-in and sign-up rate limits.
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    databaseHooks: {
      // Every way a session ends goes through these (sign-out, revoke-session(s),
      // revoke-other-sessions, a deleted user): each process's session cache drops it at once.
      session: {
        // A suspended account gets no session, whichever way it signs in.
        create: {
          before: async (session) => {
            if (await opts.isSuspended?.(session.userId)) throw APIError.from("FORBIDDEN", ACCOUNT_SUSPENDED);
            return { data: session };
          },
          after: async (session) => {
            await opts.syncRole?.(session.userId);
          },
        },
        delete: {
          after: async (session) => {
            await opts.onSessionsEnded?.({ sessionIds: [session.id] });
          },
        },
      },
      user: {
        delete: {
          after: async (user) => {
            await opts.onSessionsEnded?.({ userIds: [user.id] });
          },
        },
        create: {
          before: async (user) => {
            checkName(user.name);
            return { data: user };
          },
          after: async (user) => {
            if (!creditsOnVerified || user.emailVerified) await opts.grantSignupCredits(user.id);
          },
        },
        update: {
          before: async (user) => {
            if (typeof user.name === "string") checkName(user.name);
            return { data: user };
          },
          after: async (user) => {
            await opts.onUserChanged?.(user.id);
          },
        },
      },
    },
    telemetry: { enabled: false },
  });
}

export type Auth = ReturnType<typeof createAuth>;

/** The header the API sets to the client's address for better-auth (never taken from the caller). */
export const CLIENT_IP_HEADER = "x-photofx-client-ip";

/** How long a verification or e-mail-change link works. */
export const VERIFY_TTL_SECONDS = 24 * 3600;
/** How long a password-reset link works. */
export const RESET_TTL_SECONDS = 3600;

/** A display name: at most this many characters. */
export const NAME_MAX = 100;

function checkName(name: unknown): void {
  if (typeof name === "string" && name.length > NAME_MAX)
    throw new APIError("BAD_REQUEST", { message: `Your name can be at most ${NAME_MAX} characters.` });
}
