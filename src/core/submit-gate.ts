import type { Db } from "./db";
import type { Pricing } from "@/config/pricing";
import type { BotCheck } from "./ports/botcheck";
import { AppError, Messages } from "./errors";
import { FREE_UPLOAD_CAP, getPlanStatus } from "./plans";

/**
 * What a submit must pass before anything is charged: the plan's upload cap and, for free
 * users, the bot-check. Called by submitGeneration before the charge.
 */
export interface SubmitGate {
  /** Throws an AppError (UPGRADE_REQUIRED, VALIDATION, VERIFICATION_FAILED) to refuse the submit. */
  check(ctx: {
    userId: string;
    imageCount: number;
    token: string | null;
    ip?: string;
    hostname?: string;
  }): Promise<void>;
}

export { FREE_UPLOAD_CAP };

/** Plan caps from the user's subscription; the bot-check for free users only. */
export class PlanGate implements SubmitGate {
  constructor(
    private readonly deps: { db: Db; pricing: Pricing; subscriberCap: number; botCheck: BotCheck },
  ) {}

  async check(ctx: {
    userId: string;
    imageCount: number;
    token: string | null;
    ip?: string;
    hostname?: string;
  }) {
    const plan = await getPlanStatus(this.deps.db, this.deps.pricing, this.deps.subscriberCap, ctx.userId);
    if (plan.plan === "subscribed") {
      if (ctx.imageCount > plan.uploadCap) {
        throw new AppError(
          "VALIDATION",
          `Premium users can upload up to ${plan.uploadCap} images at a time.`,
          {
            cap: plan.uploadCap,
          },
          { key: "premiumCap", values: { n: plan.uploadCap } },
        );
      }
      return; // subscribers are not challenged
    }
    if (ctx.imageCount > FREE_UPLOAD_CAP) {
      throw new AppError(
        "UPGRADE_REQUIRED",
        `Free plan: ${FREE_UPLOAD_CAP} images max. Upgrade to upload more at a time.`,
        {
          cap: FREE_UPLOAD_CAP,
        },
        { key: "upgradeRequired", values: { n: FREE_UPLOAD_CAP } },
      );
    }
    if (!ctx.token || !(await this.deps.botCheck.verify(ctx.token, { ip: ctx.ip, hostname: ctx.hostname }))) {
      throw new AppError("VERIFICATION_FAILED", Messages.verificationFailed, undefined, {
        key: "verificationFailed",
      });
    }
  }
}
