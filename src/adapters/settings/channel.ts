import { InProcessBroadcast, RedisBroadcast, type Broadcast } from "../broadcast";

/**
 * How a settings change reaches every process: a bare "settings changed" signal; each
 * process then re-reads the database, which stays the truth. In-process on one machine,
 * Redis pub/sub on `${namespace}:settings` in scale-out.
 */
export type SettingsChannel = Broadcast<void>;

/** Within one process (every DbSettings sharing this channel hears the others). */
export class InProcessSettingsChannel extends InProcessBroadcast<void> {}

export class RedisSettingsChannel extends RedisBroadcast<void> {
  constructor(url: string, namespace: string, onError?: (err: Error) => void) {
    super(url, `${namespace}:settings`, { encode: () => "changed", decode: () => undefined }, onError);
  }
}
