import { describe, expect, it } from "vitest";
import { parseEnv } from "@/config/env";
import { DEFAULT_PRICING } from "@/config/pricing";
import { configuredProviders } from "@/engine/providers/table";
import { siteFacts, trustClaims } from "@/ui/legal/site-facts";

/**
 * The home page's trust claims and the privacy policy's list of processors come from the
 * configuration: each claim holds exactly while the settings that make it true do.
 */
const factsOf = (vars: Record<string, string>, pricing = DEFAULT_PRICING) => {
  const env = parseEnv(vars);
  return siteFacts(env, configuredProviders(env), pricing);
};
const claimsOf = (vars: Record<string, string>) => trustClaims(factsOf(vars));

describe("trust claims follow the configuration", () => {
  it("embedded defaults: photos never leave this server, originals deleted, 2 credits, no subscription", () => {
    const claims = claimsOf({});
    expect(claims).toEqual(
      expect.arrayContaining([
        "photosStayOnServer",
        "originalsDeleted",
        "creditsPerImage",
        "noSubscription",
        "refunds",
      ]),
    );
    expect(claims).not.toContain("noThirdPartyAi");
    expect(claims).toContain("signupCredits");
  });

  it("a key of any hosted engine ends both photo claims, even one that never selects itself", () => {
    for (const vars of <Array<Record<string, string>>>[
      { FAL_KEY: "k" },
      { GEMINI_API_KEY: "k" },
      { OPENAI_API_KEY: "k" },
      { REPLICATE_API_TOKEN: "k" },
      { ENGINE: "local", FAL_KEY: "k" },
      { COMFYUI_URL: "http://gpu:8188", ENGINE_OVERRIDES: "coloring-page=fal", FAL_KEY: "k" },
    ]) {
      const claims = claimsOf(vars);
      expect(claims, JSON.stringify(vars)).not.toContain("photosStayOnServer");
      expect(claims, JSON.stringify(vars)).not.toContain("noThirdPartyAi");
      expect(claims).toContain("originalsDeleted");
    }
  });

  it("ComfyUI on the operator's GPUs is not a third party, but it is another machine", () => {
    const claims = claimsOf({ COMFYUI_URL: "http://10.0.0.5:8188" });
    expect(claims).toContain("noThirdPartyAi");
    expect(claims).not.toContain("photosStayOnServer");
  });

  it("S3 storage: files live elsewhere, so only the no-third-party-AI claim remains", () => {
    const facts = factsOf({ S3_BUCKET: "b", S3_ENDPOINT: "https://minio.example.net:9000" });
    expect(facts.storage).toEqual({ kind: "s3", host: "minio.example.net:9000" });
    expect(trustClaims(facts)).toContain("noThirdPartyAi");
    expect(trustClaims(facts)).not.toContain("photosStayOnServer");
    expect(factsOf({ S3_BUCKET: "b" }).storage).toEqual({ kind: "s3", host: "Amazon S3" });
  });

  it("no sign-up credits and nothing to buy: no claim that the service needs no subscription", () => {
    expect(claimsOf({ SIGNUP_CREDITS: "0" })).not.toContain("noSubscription");
    expect(claimsOf({ SIGNUP_CREDITS: "0" })).not.toContain("signupCredits");
    expect(claimsOf({ SIGNUP_CREDITS: "0", TEST_CHECKOUT: "true" })).toContain("noSubscription");
    const plansOnly = factsOf(
      { SIGNUP_CREDITS: "0", TEST_CHECKOUT: "true" },
      { ...DEFAULT_PRICING, packs: [] },
    );
    expect(trustClaims(plansOnly)).not.toContain("noSubscription");
  });
});

describe("the privacy policy's processors", () => {
  it("names each configured hosted engine, in table order, and nothing unconfigured", () => {
    expect(factsOf({}).thirdPartyEngines).toEqual([]);
    expect(factsOf({ GEMINI_API_KEY: "k", REPLICATE_API_TOKEN: "t" }).thirdPartyEngines).toEqual([
      "gemini",
      "replicate",
    ]);
    expect(factsOf({ COMFYUI_URL: "http://gpu:8188" }).ownGpuServers).toBe(true);
  });

  it("names Stripe, SMTP, Turnstile and the OAuth providers only when configured", () => {
    const none = factsOf({ TEST_CHECKOUT: "true" });
    expect(none).toMatchObject({ payments: "test", smtp: false, turnstile: false, oauth: [] });
    const all = factsOf({
      STRIPE_SECRET_KEY: "sk",
      STRIPE_WEBHOOK_SECRET: "wh",
      SMTP_URL: "smtp://u:p@mail.example.com:587",
      TURNSTILE_SITE_KEY: "s",
      TURNSTILE_SECRET_KEY: "t",
      GOOGLE_CLIENT_ID: "g",
      GOOGLE_CLIENT_SECRET: "g",
      GITHUB_CLIENT_ID: "h",
      GITHUB_CLIENT_SECRET: "h",
      SUPPORT_EMAIL: "help@example.com",
    });
    expect(all).toMatchObject({
      payments: "stripe",
      smtp: true,
      turnstile: true,
      oauth: ["google", "github"],
      supportEmail: "help@example.com",
    });
  });
});
