/**
 * Runtime settings: what an operator changes while the service runs (the admin console,
 * later), without a restart. Today: which effects are on, and which engine renders each.
 * Defaults come from the validated env: every effect enabled, `engine` unset (meaning
 * "the env's choice": ENGINE / ENGINE_OVERRIDES, applied by the engine side).
 */
export interface EffectSettings {
  enabled: boolean;
  /** A provider id ("local", "fal", "gemini"...); unset: the env's choice. */
  engine?: string;
}

export interface RuntimeSettings {
  effects: Record<string, EffectSettings>;
}

/**
 * A change: per effect, the fields to set. `engine: null` clears an engine choice (back to
 * the env's); an omitted field keeps its value.
 */
export interface SettingsPatch {
  effects?: Record<string, { enabled?: boolean; engine?: string | null }>;
}

export type SettingsListener = (settings: RuntimeSettings) => void;

export interface SettingsPort {
  /** The cached snapshot: synchronous, never touches the database. */
  current(): RuntimeSettings;
  /**
   * Applies and stores a change made by `actor` (a user id, or "system"), then publishes
   * it to every process. Resolves with the new snapshot. Rejects with a
   * SettingsValidationError for an unknown effect or a malformed engine id.
   */
  update(patch: SettingsPatch, actor: string): Promise<RuntimeSettings>;
  /** Called with each new snapshot (this process's changes and other processes'). */
  subscribe(listener: SettingsListener): () => void;
}

/** Thrown by SettingsPort.update for a patch it refuses. */
export class SettingsValidationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SettingsValidationError";
  }
}

/** Whether an effect is on (an effect the settings do not know is on: the default). */
export const isEffectEnabled = (settings: RuntimeSettings, effectId: string): boolean =>
  settings.effects[effectId]?.enabled ?? true;
