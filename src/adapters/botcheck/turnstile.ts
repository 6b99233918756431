import { z } from "zod";
import type { BotCheck } from "@/core/ports/botcheck";
import type { UsedTokenStore } from "./used-tokens";

const siteverifyAnswer = z.object({
  success: z.boolean(),
  hostname: z.string().optional(),
  action: z.string().optional(),
  "error-codes": z.array(z.string()).optional(),
});

/** The action name the widget is rendered with; siteverify must report the same. */
export const TURNSTILE_ACTION = "submit";

/**
 * Cloudflare Turnstile: server-side siteverify, checking the hostname and action.
 * Turnstile tokens are single-use at Cloudflare (5 minutes); we also spend them locally so
 * a replay is refused even before Cloudflare answers.
 */
export class TurnstileBotCheck implements BotCheck {
  readonly kind = "turnstile" as const;

  constructor(
    private readonly opts: {
      secretKey: string;
      verifyUrl: string;
      /** Hostnames the token may have been issued for (our own). */
      hostnames: string[];
      used: UsedTokenStore;
      fetch?: typeof fetch;
    },
  ) {}

  async verify(token: string, ctx: { ip?: string }): Promise<boolean> {
    if (token.length > 2048) return false;
    if (!(await this.opts.used.spend(`turnstile:${token}`, new Date(Date.now() + 10 * 60_000)))) return false;
    const body = new URLSearchParams({ secret: this.opts.secretKey, response: token });
    if (ctx.ip) body.set("remoteip", ctx.ip);
    const res = await (this.opts.fetch ?? fetch)(this.opts.verifyUrl, {
      method: "POST",
      body,
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`Turnstile siteverify answered ${res.status}`);
    const answer = siteverifyAnswer.safeParse(await res.json());
    if (!answer.success || !answer.data.success) return false;
    if (!answer.data.hostname || !this.opts.hostnames.includes(answer.data.hostname)) return false;
    return answer.data.action === TURNSTILE_ACTION;
  }
}
