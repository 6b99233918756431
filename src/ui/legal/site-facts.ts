import type { Env } from "@/config/env";
import type { Pricing } from "@/config/pricing";

/** One configured image provider, as the running services know it. */
export interface ImageProviderFact {
  id: string;
  /** Photos stay on the operator's hardware (the built-in engine, ComfyUI). */
  selfHosted: boolean;
}

/**
 * What this server does with people's data, derived from its configuration: the home page's
 * trust claims and the privacy policy are built from this and nothing else, so no claim
 * outlives the setting that made it true.
 */
export interface SiteFacts {
  /** Hosted image services photos may be sent to (fal, gemini, openai, replicate), in table order. */
  thirdPartyEngines: string[];
  /** ComfyUI on the operator's own GPU servers is configured. */
  ownGpuServers: boolean;
  /** Where files are kept: this server's disk, or S3-compatible storage at that host. */
  storage: { kind: "disk" } | { kind: "s3"; host: string };
  /**
   * Photos never leave this machine: the built-in engine is the only engine and files stay on
   * its disk. ComfyUI (another machine, even the operator's own) and S3 make this false.
   */
  photosStayOnServer: boolean;
  /** No third-party AI service is configured (the built-in engine and ComfyUI only). */
  noThirdPartyAi: boolean;
  payments: "stripe" | "test" | "none";
  /** Account e-mails go out through the operator's SMTP server. */
  smtp: boolean;
  turnstile: boolean;
  oauth: Array<"google" | "github">;
  /** Every photo and generative output is checked on this server for explicit content. */
  contentCheck: boolean;
  uploadTtlMinutes: number;
  signupCredits: number;
  /** One-off credit packs exist: nobody needs a subscription. */
  creditPacks: boolean;
  supportEmail: string;
}

export function siteFacts(env: Env, providers: readonly ImageProviderFact[], pricing: Pricing): SiteFacts {
  const thirdPartyEngines = providers.filter((p) => !p.selfHosted).map((p) => p.id);
  const ownGpuServers = providers.some((p) => p.id === "comfyui");
  const storage: SiteFacts["storage"] = env.S3_BUCKET
    ? { kind: "s3", host: env.S3_ENDPOINT ? new URL(env.S3_ENDPOINT).host : "Amazon S3" }
    : { kind: "disk" };
  const payments = env.STRIPE_SECRET_KEY ? "stripe" : env.TEST_CHECKOUT ? "test" : "none";
  const noThirdPartyAi = thirdPartyEngines.length === 0;
  return {
    thirdPartyEngines,
    ownGpuServers,
    storage,
    photosStayOnServer: noThirdPartyAi && !ownGpuServers && storage.kind === "disk",
    noThirdPartyAi,
    payments,
    smtp: Boolean(env.SMTP_URL),
    turnstile: Boolean(env.TURNSTILE_SITE_KEY && env.TURNSTILE_SECRET_KEY),
    oauth: [
      ...(env.GOOGLE_CLIENT_ID ? (["google"] as const) : []),
      ...(env.GITHUB_CLIENT_ID ? (["github"] as const) : []),
    ],
    contentCheck: env.NSFW_CHECK,
    uploadTtlMinutes: env.UPLOAD_TTL_MINUTES,
    signupCredits: env.SIGNUP_CREDITS,
    creditPacks: pricing.packs.length > 0 && payments !== "none",
    supportEmail: env.SUPPORT_EMAIL,
  };
}

/** The trust claims the home page may make, each true for this configuration. */
export type TrustClaim =
  | "photosStayOnServer"
  | "noThirdPartyAi"
  | "originalsDeleted"
  | "creditsPerImage"
  | "noSubscription"
  | "refunds"
  | "signupCredits";

export function trustClaims(facts: SiteFacts): TrustClaim[] {
  const claims: TrustClaim[] = [];
  if (facts.photosStayOnServer) claims.push("photosStayOnServer");
  else if (facts.noThirdPartyAi) claims.push("noThirdPartyAi");
  // Uploads are deleted once their tasks end unless the user asks to keep them (ADR 016):
  // nothing in the configuration turns this off.
  claims.push("originalsDeleted", "creditsPerImage");
  // Without packs to buy (or any way to buy), sign-up credits are the only subscription-free way in.
  if (facts.creditPacks || facts.signupCredits > 0) claims.push("noSubscription");
  claims.push("refunds");
  if (facts.signupCredits > 0) claims.push("signupCredits");
  return claims;
}
