import { eq } from "drizzle-orm";
import type { Db } from "./db";
import { subscription } from "./schema";
import type { Pricing } from "@/config/pricing";
import { FREE_UPLOAD_CAP } from "./plan-limits";

export { FREE_UPLOAD_CAP };

export interface PlanStatus {
  plan: "free" | "subscribed";
  /** Images per submit. */
  uploadCap: number;
  planId?: string;
  /** active | canceled | past_due, when there is a subscription row. */
  status?: string;
  /** When the paid period ends (a canceled plan keeps its cap until then). */
  periodEnd?: string;
}

/**
 * Whether a user is subscribed now: a subscription whose paid period has not ended,
 * whatever its status (a cancellation takes effect at period end).
 */
export async function getPlanStatus(
  db: Db,
  pricing: Pricing,
  subscriberCap: number,
  userId: string,
  now = new Date(),
): Promise<PlanStatus> {
  const rows = await db.select().from(subscription).where(eq(subscription.userId, userId));
  const sub = rows[0];
  if (!sub || sub.currentPeriodEnd <= now) {
    return sub
      ? {
          plan: "free",
          uploadCap: FREE_UPLOAD_CAP,
          planId: sub.planId,
          status: sub.status,
          periodEnd: sub.currentPeriodEnd.toISOString(),
        }
      : { plan: "free", uploadCap: FREE_UPLOAD_CAP };
  }
  const plan = pricing.plans.find((p) => p.id === sub.planId);
  return {
    plan: "subscribed",
    uploadCap: plan?.uploadCap ?? subscriberCap,
    planId: sub.planId,
    status: sub.status,
    periodEnd: sub.currentPeriodEnd.toISOString(),
  };
}
