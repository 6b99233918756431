import { z } from "zod";
import { EFFECTS } from "../catalogue";
import type { Db } from "../db";
import { AppError } from "../errors";
import type { SettingsPort } from "../ports/settings";
import { writeAuditTx } from "./audit";
import type { Actor } from "./roles";

/**
 * Effects in the console: each one on or off and its engine, through the settings port
 * (stored in the database, cached, signalled to every process: no restart, in both modes).
 * Off: the effect's page says it is unavailable and submit refuses it before charging.
 */

export interface EffectRow {
  id: string;
  title: string;
  enabled: boolean;
  /** The operator's choice; null: the env's (ENGINE / ENGINE_OVERRIDES). */
  engine: string | null;
}

export function listEffectSettings(settings: SettingsPort): EffectRow[] {
  const current = settings.current().effects;
  return EFFECTS.map((e) => ({
    id: e.id,
    title: e.title,
    enabled: current[e.id]?.enabled ?? true,
    engine: current[e.id]?.engine ?? null,
  }));
}

export const effectPatchSchema = z
  .object({
    enabled: z.boolean().optional(),
    /** A configured provider id, or null for the env's choice. */
    engine: z
      .string()
      .regex(/^[a-z0-9-]{1,40}$/)
      .nullable()
      .optional(),
  })
  .strict()
  .refine((p) => p.enabled !== undefined || p.engine !== undefined, "nothing to change");

/**
 * Changes one effect; the audit row is written after the settings port stored the change
 * (the port owns its own transaction), with the state before and after.
 */
export async function updateEffect(
  deps: { db: Db; settings: SettingsPort; engines: readonly string[] },
  actor: Actor,
  effectId: string,
  body: unknown,
): Promise<EffectRow> {
  const effect = EFFECTS.find((e) => e.id === effectId);
  if (!effect) throw new AppError("NOT_FOUND", "Not found");
  const parsed = effectPatchSchema.safeParse(body);
  if (!parsed.success)
    throw new AppError("VALIDATION", "Send { enabled?: boolean, engine?: a configured engine id | null }.");
  const patch = parsed.data;
  if (patch.engine && !deps.engines.includes(patch.engine))
    throw new AppError("VALIDATION", `"${patch.engine}" is not an engine this server has configured.`, {
      reason: "engineNotConfigured",
    });
  const before = deps.settings.current().effects[effectId];
  const beforeRow = { enabled: before?.enabled ?? true, engine: before?.engine ?? null };
  const next = await deps.settings.update({ effects: { [effectId]: patch } }, actor.id);
  const after = {
    enabled: next.effects[effectId]?.enabled ?? true,
    engine: next.effects[effectId]?.engine ?? null,
  };
  await writeAuditTx(deps.db, {
    actor,
    action: "effect.update",
    targetType: "effect",
    targetId: effectId,
    before: beforeRow,
    after,
  });
  return { id: effectId, title: effect.title, ...after };
}
