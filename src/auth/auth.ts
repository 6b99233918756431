import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import type { Db } from "@/core/db";
import * as schema from "@/core/schema";
import type { Env } from "@/config/env";

export interface AuthOptions {
  db: Db;
  env: Env;
  secret: string;
  /** Called once for each new account (the starting credit grant). */
  onUserCreated(userId: string): Promise<void>;
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
    // Unset: better-auth's default (on in production only).
    ...(env.AUTH_RATE_LIMIT === undefined ? {} : { rateLimit: { enabled: env.AUTH_RATE_LIMIT } }),
    session: {
      expiresIn: 60 * 60 * 24 * 30,
      updateAge: 60 * 60 * 24,
    },
    advanced: {
      useSecureCookies: env.appUrl.startsWith("https://"),
    },
    databaseHooks: {
      user: {
        create: {
          after: async (user) => {
            await opts.onUserCreated(user.id);
          },
        },
      },
    },
    telemetry: { enabled: false },
  });
}

export type Auth = ReturnType<typeof createAuth>;
