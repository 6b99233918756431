import { getEnv } from "./env";

/**
 * The configuration the browser may see: an explicit whitelist, taken from the validated
 * env at request time (an operator's change needs no rebuild). Server components pass it
 * down as props; client components never import src/config. Nothing secret belongs here.
 */
export interface PublicConfig {
  supportEmail: string;
  /** Credits a new account gets (SIGNUP_CREDITS): the sign-up offer says it. */
  signupCredits: number;
}

export function publicConfig(): PublicConfig {
  const env = getEnv();
  return { supportEmail: env.SUPPORT_EMAIL, signupCredits: env.SIGNUP_CREDITS };
}
