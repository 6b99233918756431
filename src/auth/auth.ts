import { APIError } from "better-auth/api";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import type { Db } from "@/core/db";
import * as schema from "@/core/schema";
import type { Env } from "@/config/env";
import { commonPasswords } from "./common-passwords";

export interface AuthOptions {
  db: Db;
  env: Env;
  secret: string;
  /** Called once for each new account (the starting credit grant). */
  onUserCreated(userId: string): Promise<void>;
  /** Called when sessions end before their time (sign-out, revoked, account deleted): cached sessions are dropped. */
  onSessionsEnded?(ended: { sessionIds?: string[]; userIds?: string[] }): Promise<void>;
}

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
            await opts.onUserCreated(user.id);
          },
        },
        update: {
          before: async (user) => {
            if (typeof user.name === "string") checkName(user.name);
            return { data: user };
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

/** A display name: at most this many characters. */
export const NAME_MAX = 100;

function checkName(name: unknown): void {
  if (typeof name === "string" && name.length > NAME_MAX)
    throw new APIError("BAD_REQUEST", { message: `Your name can be at most ${NAME_MAX} characters.` });
}
