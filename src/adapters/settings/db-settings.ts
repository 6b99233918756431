import { sql } from "drizzle-orm";
import type { Db } from "@/core/db";
import {
  SettingsValidationError,
  type EffectSettings,
  type RuntimeSettings,
  type SettingsListener,
  type SettingsPatch,
  type SettingsPort,
} from "@/core/ports/settings";
import { effectSetting } from "@/core/schema";
import type { SettingsChannel } from "./channel";

const ENGINE_ID = /^[a-z][a-z0-9-]{0,39}$/;

function freeze(settings: RuntimeSettings): RuntimeSettings {
  for (const e of Object.values(settings.effects)) Object.freeze(e);
  Object.freeze(settings.effects);
  return Object.freeze(settings);
}

/**
 * Runtime settings kept in the database (table `effect_setting`), served from an
 * in-memory snapshot. A change is written in one transaction, then signalled on the
 * channel; every process (this one too) re-reads the table and tells its subscribers.
 * Re-reads run one at a time, so a process never goes back to an older snapshot.
 * `defaults` (from the validated env) list the known effects and their values when no
 * row overrides them.
 */
export class DbSettings implements SettingsPort {
  private snapshot: RuntimeSettings;
  private readonly listeners = new Set<SettingsListener>();
  private chain: Promise<void> = Promise.resolve();
  private readonly unsubscribe: () => void;

  private constructor(
    private readonly db: Db,
    private readonly channel: SettingsChannel,
    private readonly defaults: RuntimeSettings,
    private readonly onError: (err: unknown) => void,
  ) {
    this.snapshot = freeze(structuredClone(defaults));
    this.unsubscribe = channel.subscribe(() => {
      this.refresh().catch(onError);
    });
  }

  /** Loads the stored settings and starts listening for changes. */
  static async open(opts: {
    db: Db;
    channel: SettingsChannel;
    defaults: RuntimeSettings;
    onError?: (err: unknown) => void;
  }): Promise<DbSettings> {
    const settings = new DbSettings(opts.db, opts.channel, opts.defaults, opts.onError ?? (() => {}));
    await opts.channel.ready();
    await settings.refresh();
    return settings;
  }

  current(): RuntimeSettings {
    return this.snapshot;
  }

  subscribe(listener: SettingsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async update(patch: SettingsPatch, actor: string): Promise<RuntimeSettings> {
    const entries = Object.entries(patch.effects ?? {});
    for (const [effectId, change] of entries) {
      if (!(effectId in this.defaults.effects)) {
        throw new SettingsValidationError(`Unknown effect "${effectId}"`);
      }
      if (change.enabled !== undefined && typeof change.enabled !== "boolean") {
        throw new SettingsValidationError(`${effectId}: enabled must be true or false`);
      }
      if (change.engine != null && !ENGINE_ID.test(change.engine)) {
        throw new SettingsValidationError(`${effectId}: "${change.engine}" is not an engine id`);
      }
    }
    if (entries.length) {
      await this.db.transaction(async (tx) => {
        for (const [effectId, change] of entries) {
          const base = this.defaults.effects[effectId]!;
          await tx
            .insert(effectSetting)
            .values({
              effectId,
              enabled: change.enabled ?? base.enabled,
              engine: change.engine === undefined ? (base.engine ?? null) : change.engine,
              updatedBy: actor,
            })
            .onConflictDoUpdate({
              target: effectSetting.effectId,
              set: {
                ...(change.enabled === undefined ? {} : { enabled: change.enabled }),
                ...(change.engine === undefined ? {} : { engine: change.engine }),
                updatedBy: actor,
                updatedAt: sql`now()`,
              },
            });
        }
      });
    }
    await this.refresh();
    await this.channel.publish();
    return this.snapshot;
  }

  /**
   * Re-reads the table and, if anything changed, replaces the snapshot and tells the
   * subscribers. Runs after any re-read already under way (never out of order).
   */
  refresh(): Promise<void> {
    const next = this.chain.then(() => this.reload());
    this.chain = next.catch(() => {});
    return next;
  }

  private async reload(): Promise<void> {
    const rows = await this.db.select().from(effectSetting);
    const effects: Record<string, EffectSettings> = structuredClone(this.defaults.effects);
    for (const row of rows) {
      if (!(row.effectId in effects)) continue; // an effect no longer in the catalogue
      effects[row.effectId] = { enabled: row.enabled, ...(row.engine ? { engine: row.engine } : {}) };
    }
    const next: RuntimeSettings = { effects };
    if (JSON.stringify(next) === JSON.stringify(this.snapshot)) return;
    this.snapshot = freeze(next);
    for (const listener of this.listeners) {
      try {
        listener(this.snapshot);
      } catch (err) {
        this.onError(err);
      }
    }
  }

  async close(): Promise<void> {
    this.unsubscribe();
    this.listeners.clear();
  }
}
