import { AppError } from "./errors";

/**
 * What a submit must pass before anything is charged: the plan's upload cap and, for free
 * users, the bot-check. The plans issue replaces the default with plan-aware rules and a
 * real verifier (ALTCHA or Turnstile); the call site in submitGeneration stays as it is.
 */
export interface SubmitGate {
  /** Throws an AppError (VALIDATION, VERIFICATION_FAILED, …) to refuse the submit. */
  check(ctx: { userId: string; imageCount: number; token: string | null }): Promise<void>;
}

/** The spec's free-plan cap ("Free plan: 2 Images max"). */
export const FREE_UPLOAD_CAP = 2;

/**
 * Until plans and the bot-check land, everyone is on the free plan: at most
 * FREE_UPLOAD_CAP images per submit. No bot-check is run yet.
 */
export class FreePlanGate implements SubmitGate {
  async check(ctx: { imageCount: number }): Promise<void> {
    if (ctx.imageCount > FREE_UPLOAD_CAP) {
      throw new AppError(
        "UPGRADE_REQUIRED",
        `Free plan: ${FREE_UPLOAD_CAP} images max. Upgrade to upload more at a time.`,
        { cap: FREE_UPLOAD_CAP },
      );
    }
  }
}
