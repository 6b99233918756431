import { z } from "zod";

/**
 * The configuration pages may show: an explicit whitelist, read at request time so an
 * operator's change needs no rebuild. Nothing secret belongs here.
 */
const publicSchema = z.object({
  SUPPORT_EMAIL: z.email().catch("support@photofx.local").default("support@photofx.local"),
});

export function publicConfig(): { supportEmail: string } {
  const env = publicSchema.parse({ SUPPORT_EMAIL: process.env.SUPPORT_EMAIL || undefined });
  return { supportEmail: env.SUPPORT_EMAIL };
}
